import { codes, type ErrorCode } from "./codes.js";

/**
 * The one error type for bad input and unavailable services (STYLE rule 5). A broken internal
 * invariant is never a LedgerError: it is an `assert` and stops the node.
 */
export class LedgerError extends Error {
  override readonly name = "LedgerError";

  constructor(
    readonly code: ErrorCode,
    /** The short message, BigchainDB's text where it has one, without the frame. */
    message: string,
    options: { cause?: unknown; details?: readonly string[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details ?? [];
  }

  readonly details: readonly string[];

  get status(): number {
    return codes[this.code].status;
  }

  /** The message as the HTTP API reports it, framed as BigchainDB frames it. */
  get httpMessage(): string {
    const frame = codes[this.code].frame;
    if (frame === "validation") return `Invalid transaction (${this.code}): ${this.message}`;
    if (frame === "schema") return `Invalid transaction schema: ${this.message}`;
    return this.message;
  }
}

/** A coded rejection as a value, for the pure validation functions that return rather than throw. */
export interface Rejection {
  readonly code: ErrorCode;
  readonly message: string;
}

export function reject(code: ErrorCode, message: string): Rejection {
  return { code, message };
}

export function toLedgerError(rejection: Rejection): LedgerError {
  return new LedgerError(rejection.code, rejection.message);
}
