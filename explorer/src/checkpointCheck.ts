// The node's signed checkpoint as the page checks it (docs/explorer.md "Checkpoint",
// docs/transparency.md): the signature by the node's verifier key, the cosignatures it carries,
// and whether it is consistent with the last checkpoint of the same origin this browser saw
// (kept in localStorage, so switching `?node=` between nodes of one log checks them against each
// other): a consistency proof built from the node's tiles and checked by ledgerd's pure code.
// A smaller size than seen, or a proof that fails, is shown as what it is: a rollback or a
// split view. Only a consistent (or a first) checkpoint replaces the one kept.
import { LedgerdClient } from "../../src/client/client.js";
import { parseCheckpointBody, type Checkpoint } from "../../src/proofs/checkpoint.js";
import { fromBase64, toBase64, toHex } from "../../src/proofs/encoding.js";
import { openNote, parseVerifierKey, splitNote } from "../../src/proofs/signedNote.js";
import { extendsTree, type TileFetch } from "../../src/proofs/tileNodes.js";
import { tilePath } from "../../src/proofs/tiles.js";
import { requestTimeoutMs } from "./limits.js";
import { timedFetch } from "./pager.js";

/** Where the page keeps the last checkpoint it saw of an origin. */
export const seenKeyPrefix = "ledgerd-checkpoint:";

export interface CheckpointStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export interface Cosignature {
  readonly name: string;
  readonly keyId: string;
  /** The cosignature's time (tlog-cosignature), in seconds; null for other signature types. */
  readonly time: number | null;
}

export type LastSeen =
  | { readonly verdict: "first" }
  | { readonly verdict: "consistent"; readonly size: number }
  | { readonly verdict: "rollback" | "split_view"; readonly size: number }
  /** The tiles to prove it could not be read: neither consistent nor not. */
  | { readonly verdict: "unchecked"; readonly size: number; readonly reason: string };

export type CheckpointCheck =
  | { readonly ok: false; readonly reason: string }
  | {
      readonly ok: true;
      readonly checkpoint: { readonly origin: string; readonly size: number; readonly root: string };
      readonly key: string;
      readonly cosignatures: readonly Cosignature[];
      readonly lastSeen: LastSeen;
    };

/** A tile (binary, so not the client's). */
async function fetchOk(url: string): Promise<Response> {
  const response = await fetch(url, { signal: AbortSignal.timeout(requestTimeoutMs) });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response;
}

/** Checks the latest checkpoint of the node at `base` against what `storage` kept. */
export async function checkCheckpoint(base: string, storage: CheckpointStorage): Promise<CheckpointCheck> {
  let vkey: string;
  let note: string;
  try {
    const client = new LedgerdClient(base, { fetch: timedFetch });
    vkey = await client.getCheckpointKey();
    note = (await client.getCheckpoint()).note;
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  const key = parseVerifierKey(vkey);
  const body = key === null ? null : openNote(note, key);
  const checkpoint = body === null ? null : parseCheckpointBody(body);
  if (key === null || checkpoint === null || checkpoint.origin !== key.name) return { ok: false, reason: "the checkpoint is not signed by the node's verifier key" };
  const cosignatures = (splitNote(note)?.signatures ?? [])
    .filter((s) => s.name !== key.name)
    .map((s) => ({ name: s.name, keyId: toHex(s.keyId), time: s.signature.length === 8 + 64 ? Number(new DataView(s.signature.buffer, s.signature.byteOffset).getBigUint64(0)) : null }));
  const fetchTile: TileFetch = async (tile) => new Uint8Array(await (await fetchOk(`${base}/api/v1/tlog/${tilePath(tile)}`)).arrayBuffer());
  const lastSeen = await againstSeen(checkpoint, storage, fetchTile);
  const root = toBase64(checkpoint.root);
  if (lastSeen.verdict === "first" || lastSeen.verdict === "consistent") storage.setItem(seenKeyPrefix + checkpoint.origin, JSON.stringify({ size: checkpoint.size, root }));
  return { ok: true, checkpoint: { origin: checkpoint.origin, size: checkpoint.size, root }, key: vkey, cosignatures, lastSeen };
}

async function againstSeen(checkpoint: Checkpoint, storage: CheckpointStorage, fetchTile: TileFetch): Promise<LastSeen> {
  const kept = readSeen(storage.getItem(seenKeyPrefix + checkpoint.origin));
  if (kept === null) return { verdict: "first" };
  if (kept.size > checkpoint.size) return { verdict: "rollback", size: kept.size };
  const seen = { origin: checkpoint.origin, size: kept.size, root: fromBase64(kept.root) };
  try {
    return { verdict: (await extendsTree(fetchTile, seen, checkpoint)) ? "consistent" : "split_view", size: kept.size };
  } catch (error) {
    return { verdict: "unchecked", size: kept.size, reason: error instanceof Error ? error.message : String(error) };
  }
}

function readSeen(text: string | null): { size: number; root: string } | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { size?: unknown; root?: unknown };
    return Number.isSafeInteger(value.size) && typeof value.root === "string" ? { size: value.size as number, root: value.root } : null;
  } catch {
    return null;
  }
}

