// `ledgerd mirror --to DIR` (docs/transparency.md "Mirrors"): the node's transparency log as
// static files, laid out as the tiles' URLs are (`checkpoint`, `tile/<L>/<N>[.p/<W>]`,
// `tile/entries/<N>[.p/<W>]`), so that a plain web server or an object store serving DIR at a
// URL serves the log, and every proof a client builds from it, with no ledgerd behind it. Read
// from a node's API (`--node URL`) or from the local ledger (its data folder). Incremental: a full
// tile never changes, so one written is kept; partial tiles are written for the new size and
// the old ones removed; the checkpoint is written last, so a reader never meets a checkpoint
// whose tiles are missing. A checkpoint smaller than the mirror's is refused: the log went back.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config/schema.js";
import { historyHeadOf, readTile } from "../ledger/tiles.js";
import { checkpointNotaryOf } from "../node/checkpointSigner.js";
import { openLedgerReader } from "../node/openStore.js";
import { parseCheckpointBody } from "../proofs/checkpoint.js";
import { splitNote } from "../proofs/signedNote.js";
import { tilePath, tilesOf, tileWidth, type TileRef } from "../proofs/tiles.js";

/** Where a mirror reads the log: the latest signed checkpoint and any tile of its size. */
export interface LogSource {
  checkpoint(): Promise<string>;
  tile(tile: TileRef): Promise<Uint8Array>;
  close(): Promise<void>;
}

export interface MirrorReport {
  readonly size: number;
  /** The mirror's size before, 0 for a new one. */
  readonly from: number;
  readonly written: number;
  readonly removed: number;
}

/** A checkpoint's size, or an error naming where it came from. */
function sizeOf(note: string, where: string): number {
  const split = splitNote(note);
  const checkpoint = split === null ? null : parseCheckpointBody(split.body);
  if (checkpoint === null) throw new Error(`${where} is not a signed checkpoint`);
  return checkpoint.size;
}

export async function mirrorLog(source: LogSource, dir: string): Promise<MirrorReport> {
  const note = await source.checkpoint();
  const size = sizeOf(note, "the source's checkpoint");
  const checkpointFile = join(dir, "checkpoint");
  const from = existsSync(checkpointFile) ? sizeOf(readFileSync(checkpointFile, "utf8"), checkpointFile) : 0;
  if (size < from) throw new Error(`the source's checkpoint is of size ${size}, smaller than the mirror's ${from}: the log went back, nothing written`);
  const wanted = tilesOf(size);
  let written = 0;
  for (const tile of wanted) {
    const file = join(dir, tilePath(tile));
    // A tile's bytes are fixed by its path: one already there is this one.
    if (existsSync(file)) continue;
    writeAtomically(file, await source.tile(tile));
    written++;
  }
  // The partial tiles of the old size that the new one replaced (by a wider or a full tile).
  const kept = new Set(wanted.map(tilePath));
  let removed = 0;
  for (const tile of tilesOf(from)) {
    if (tile.width === tileWidth || kept.has(tilePath(tile))) continue;
    rmSync(join(dir, tilePath(tile)), { force: true });
    removed++;
  }
  writeAtomically(checkpointFile, new TextEncoder().encode(note));
  return { size, from, written, removed };
}

function writeAtomically(file: string, bytes: Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, file);
}

/** The longest a request to a node's API may take: a node that hangs must not stall a tool forever. */
export const nodeRequestTimeoutMs = 30_000;

/** A node's API: its log prefix `/api/v1/tlog/`. */
export function nodeLogSource(url: string): LogSource {
  const prefix = `${url.replace(/\/+$/, "")}/api/v1/tlog/`;
  const get = async (path: string): Promise<Response> => {
    const response = await fetch(prefix + path, { signal: AbortSignal.timeout(nodeRequestTimeoutMs) });
    if (response.status !== 200) throw new Error(`GET ${prefix}${path}: ${response.status} ${(await response.text()).slice(0, 200)}`);
    return response;
  };
  return {
    checkpoint: async () => (await get("checkpoint")).text(),
    tile: async (tile) => new Uint8Array(await (await get(tilePath(tile))).arrayBuffer()),
    close: async () => {},
  };
}

/** The local ledger (read beside a running node), its checkpoint signed with the node key. */
export async function ledgerLogSource(config: Config): Promise<LogSource> {
  const notary = checkpointNotaryOf(config);
  if (notary === undefined) throw new Error(`no node key in ${config.data_dir}: the checkpoint cannot be signed`);
  const store = await openLedgerReader(config);
  let size: number | undefined;
  return {
    checkpoint: async () => {
      const head = await historyHeadOf(store);
      size = head.size;
      return (await notary.at(store, head.size, head.size, head.height)).note;
    },
    tile: (tile) => readTile(store, tile, size!),
    close: () => store.close(),
  };
}
