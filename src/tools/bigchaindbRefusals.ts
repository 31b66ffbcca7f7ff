// Why ledgerd refuses a transaction BigchainDB accepted, for the import's report: the rejection's
// code, the entry of docs/compatibility.md that says where ledgerd's rules differ, and, for a
// transaction that spends one refused earlier, that one (its refusal follows from the first).
import type { Rejection } from "../errors/ledgerError.js";
import type { SourceTx } from "./bigchaindbSource.js";

/** One refused transaction, as the journal and the report write it. */
export interface Refusal {
  readonly height: number;
  /** Its place in BigchainDB's block, from 0. */
  readonly index: number;
  readonly id: string;
  readonly operation: string;
  readonly code: string;
  readonly message: string;
  /** The compatibility entries that explain the refusal (`docs/compatibility.md#N`); none known: []. */
  readonly compatibility: readonly number[];
  /** The refused transaction this one spends, when that is why it is refused. */
  readonly depends_on: string | null;
}

/**
 * The entries of docs/compatibility.md under which ledgerd refuses what BigchainDB 2.2.2
 * accepted, by rejection code. A code not here has no documented difference: BigchainDB
 * refused the same (a duplicate, a double spend), so its refusal here is a finding to report.
 */
const entriesByCode: Readonly<Record<string, readonly number[]>> = {
  // #8: a CREATE signed by a key other than its owners_before; conditions of other types.
  InvalidSignature: [8],
  SchemaValidationError: [8, 11],
  // #11: elections are judged by the validator set the import began with (BigchainDB's current one).
  MultipleInputsError: [11],
  InvalidProposer: [11],
  UnequalValidatorSet: [11],
  InvalidPowerChange: [11],
  InvalidPublicKey: [11],
  ElectionConcluded: [11],
};

/** Codes by which a transaction that spends a refused one is refused in its turn. */
const consequenceCodes = new Set(["InputDoesNotExist", "AssetIdMismatch", "AmountError"]);

/**
 * The refused transactions met so far, to tell a later refusal that follows from one. Bounded:
 * past `idsMax` ids no more are kept (the refusals are still reported, without the link).
 */
export class RefusalTracker {
  private readonly entries = new Map<string, readonly number[]>();

  constructor(private readonly idsMax: number) {}

  /** The report's line for `tx`, refused at `index` of the block at `height`. */
  refusalOf(height: number, index: number, tx: SourceTx, rejection: Rejection): Refusal {
    const root = consequenceCodes.has(rejection.code) ? tx.spends.find((id) => this.entries.has(id)) : undefined;
    const compatibility = root === undefined ? (entriesByCode[rejection.code] ?? []) : this.entries.get(root)!;
    const refusal: Refusal = {
      height,
      index,
      id: tx.id,
      operation: tx.operation,
      code: rejection.code,
      message: rejection.message,
      compatibility,
      depends_on: root ?? null,
    };
    this.remember(refusal);
    return refusal;
  }

  /** A refusal of an earlier run (read back from the journal when resuming). */
  remember(refusal: Pick<Refusal, "id" | "compatibility">): void {
    if (this.entries.size < this.idsMax) this.entries.set(refusal.id, refusal.compatibility);
  }
}

/** One line for stderr: what was refused, why, and where the difference is documented. */
export function describeRefusal(refusal: Refusal): string {
  const entries = refusal.compatibility.map((n) => `docs/compatibility.md#${n}`).join(", ");
  const why = refusal.depends_on === null ? "" : ` (it spends refused ${refusal.depends_on})`;
  const where = entries === "" ? "no documented difference: please report it" : entries;
  return `height ${refusal.height}: ${refusal.operation} ${refusal.id} refused, ${refusal.code}${why}: ${refusal.message} [${where}]`;
}
