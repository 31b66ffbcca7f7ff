// The node as a witness of other logs (ledger/witness.ts, docs/transparency.md "Witness"): the
// logs from `witness.logs`, a key of its own (`<data_dir>/witness_key.json`, created on first
// use: a cosigner's key must not be the key that signs the node's checkpoints, C2SP
// tlog-cosignature), and its heads in `<data_dir>/witness_state.json`, replaced atomically
// (written, synced, renamed) before each cosignature is answered.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../clock/clock.js";
import { ConfigError } from "../config/configError.js";
import { moduleOptions } from "../config/moduleOptions.js";
import type { Config } from "../config/schema.js";
import { checkpointOriginOf } from "../ledger/checkpoints.js";
import { Witness, type WitnessedHead, type WitnessState } from "../ledger/witness.js";
import { parseVerifierKey, type NoteKey } from "../proofs/signedNote.js";
import { checkpointSignerOf } from "./checkpointSigner.js";
import { writeFileDurably } from "./durableFile.js";
import { loadOrCreateNodeKey } from "./nodeKey.js";

export const witnessKeyFileName = "witness_key.json";
export const witnessStateFileName = "witness_state.json";

/** The witness of a node whose settings name logs to witness; none when they name none. */
export function witnessOf(config: Config, clock: Clock): Witness | undefined {
  const options = moduleOptions(config).witness;
  if (options.logs === "") return undefined;
  const logs = options.logs.split(",").map((text) => text.trim()).map((text) => {
    const key = parseVerifierKey(text);
    if (key === null) throw new ConfigError([{ key: "witness.logs", reason: `${text} is not a signed-note Ed25519 verifier key`, source: "settings" }]);
    return key;
  });
  // The check and the update of a log's head are one step in one process (ledger/witness.ts).
  if (config.server.workers > 1) throw new ConfigError([{ key: "witness.logs", reason: "a witness runs with server.workers = 1", source: "settings" }]);
  const { key } = loadOrCreateNodeKey(config.data_dir, undefined, witnessKeyFileName);
  const name = options.name !== "" ? options.name : `${checkpointOriginOf(moduleOptions(config).checkpoint.origin, config.engine.chain_id)}/witness`;
  const cosigner = checkpointSignerOf(key, name);
  return new Witness(logs as NoteKey[], { cosigner, state: fileWitnessState(join(config.data_dir, witnessStateFileName)), now: () => clock.now() });
}

/**
 * The heads in a JSON file (none before the first cosignature), read once when the node starts
 * and kept in memory, the file written through at each cosignature. A file that holds no heads
 * stops the start, saying so, rather than failing every request to the witness.
 */
export function fileWitnessState(path: string): WitnessState {
  let heads = readHeads(path);
  return {
    read: () => heads,
    // Off the event loop; the heads change once the file is durable, and the witness answers after.
    write: async (next) => {
      await writeFileDurably(path, `${JSON.stringify(next, null, 2)}\n`);
      heads = next;
    },
  };
}

function readHeads(path: string): Record<string, WitnessedHead> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  const heads = parseJsonOrNull(text);
  if (!isHeads(heads)) {
    // Removing the file would let the witness cosign a log's history that forks from the one it
    // vouched for: the operator must choose that, not the node.
    throw new Error(`${path} holds no witness heads (a JSON object of origin to {size, root}): restore it from a backup (removing it forgets every head cosigned)`);
  }
  return heads;
}

function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isHeads(value: unknown): value is Record<string, WitnessedHead> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((head: unknown) => {
    if (typeof head !== "object" || head === null) return false;
    const { size, root } = head as Record<string, unknown>;
    return Number.isSafeInteger(size) && (size as number) >= 0 && typeof root === "string";
  });
}
