import { LedgerError } from "../errors/ledgerError.js";
import { resumeParameters, type StreamKind } from "./limits.js";

/**
 * Where a reconnecting subscriber stopped (docs/http-api.md "Resuming a stream"): the first
 * block it wants and, on the transaction stream, the last transaction it got in that block.
 */
export interface ResumeAsk {
  readonly height: number;
  /** The id of the transaction of block `height` after which to resume; null: the whole block. */
  readonly after: string | null;
}

/** Heights are whole numbers a double holds exactly: 1 to 2^53 - 1, in digits. */
const heightPattern = /^[1-9][0-9]{0,15}$/;
const txIdPattern = /^[0-9a-fA-F]{64}$/;

/**
 * The resume parameters of a stream request's URL, or null when it has none (a plain
 * subscription, as BigchainDB's). Read strictly, as the API's parameters are
 * (docs/compatibility.md #20): an unknown or repeated parameter, a malformed value, or `after`
 * without `from_height` is BadParameter (400, before the upgrade).
 */
export function parseResumeAsk(kind: StreamKind, url: string | undefined): ResumeAsk | null {
  const at = (url ?? "").indexOf("?");
  const query = new URLSearchParams(at < 0 ? "" : (url ?? "").slice(at + 1));
  const names = [...query.keys()];
  if (names.length === 0) return null;
  const known: readonly string[] = resumeParameters[kind];
  const unknown = [...new Set(names.filter((name) => !known.includes(name)))];
  if (unknown.length > 0) throw new LedgerError("BadParameter", `Unknown arguments: ${unknown.join(", ")}`);
  for (const name of known) {
    if (query.getAll(name).length > 1) throw badParameter(name, "given more than once; give each parameter once");
  }
  const height = query.get("from_height");
  const after = query.get("after");
  if (height === null) throw badParameter("after", "needs from_height, the height of the block that holds it");
  if (!heightPattern.test(height) || !Number.isSafeInteger(Number(height))) {
    throw badParameter("from_height", `must be a block height, a whole number from 1 (got '${height}')`);
  }
  if (after !== null && !txIdPattern.test(after)) throw badParameter("after", "must be a transaction id, 64 hex digits");
  return { height: Number(height), after: after?.toLowerCase() ?? null };
}

function badParameter(name: string, text: string): LedgerError {
  return new LedgerError("BadParameter", `${name}: ${text}`);
}
