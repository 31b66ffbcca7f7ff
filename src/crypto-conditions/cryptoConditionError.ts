/**
 * Why a fulfillment or condition was refused:
 * - `parse`: not well-formed (base64url, DER, lengths, a malformed details object);
 * - `unsupported`: a well-formed type other than ed25519-sha-256 and threshold-sha-256
 *   (docs/compatibility.md #8);
 * - `too-deep`: nested deeper than `nestingDepthMax` (BigchainDB's ThresholdTooDeep);
 * - `limit`: more than a named limit of children, bytes or threshold.
 */
export type CryptoConditionErrorReason = "parse" | "unsupported" | "too-deep" | "limit";

/**
 * Bad input to this folder. The caller turns it into a coded rejection: `too-deep` into
 * ThresholdTooDeep, anything else into InvalidSignature (BigchainDB's "Fulfillment URI couldn't
 * been parsed").
 */
export class CryptoConditionError extends Error {
  override readonly name = "CryptoConditionError";

  constructor(
    readonly reason: CryptoConditionErrorReason,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}
