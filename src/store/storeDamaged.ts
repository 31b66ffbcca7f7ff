// A damaged database (docs/errors.md `StoreDamaged`), said the same way by every part that
// finds it: what is damaged, how it shows, and what the operator does about it.
import { LedgerError } from "../errors/ledgerError.js";

/** What an operator does about it, said in every message. */
const remedy =
  "restore it from a backup (ledgerd restore); under CometBFT the handshake then replays the blocks the backup lacks";

/** `file`: the database's file, when the finder knows it. */
export function storeDamaged(file: string | null, detail: string, cause?: unknown): LedgerError {
  const database = file === null ? "the database" : `the database ${file}`;
  return new LedgerError("StoreDamaged", `${database} is damaged (${detail}): ${remedy}`, cause === undefined ? {} : { cause });
}
