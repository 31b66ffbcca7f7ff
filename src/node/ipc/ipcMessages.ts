// The messages between the primary process (ledger, engine, writing store) and its HTTP worker
// processes (server.workers > 1), over node:cluster's IPC channel. That channel carries JSON:
// a bigint does not survive it and a Uint8Array arrives as an object of numbered keys, so bytes
// travel as base64 and a prepared transaction as its kind encodes it (amounts as decimal text).
import { Buffer } from "node:buffer";
import type { BroadcastMode } from "../../engine/broadcaster.js";
import type { ErrorCode } from "../../errors/codes.js";
import type { Config } from "../../config/schema.js";
import type { LegacyPosted, LegacyStatus } from "../../http/routes/legacy.js";
import { kindNamed, kindOf } from "../../ledger/kinds/registry.js";
import type { Door, PreparedBase } from "../../ledger/txKind.js";

/** Every message carries this tag, so the node ignores IPC traffic that is not its own. */
export const ipcTag = "ledgerd";

/** Primary to worker: the settings to run with (sent once, after fork). */
export interface StartMessage {
  readonly tag: typeof ipcTag;
  readonly type: "start";
  readonly config: Config;
  readonly streamsUrl: string;
  readonly version: string;
}

/** Primary to worker: stop accepting, finish the requests in progress, exit. */
export interface CloseMessage {
  readonly tag: typeof ipcTag;
  readonly type: "close";
}

/** Worker to primary: its message listener is in place; the primary answers with StartMessage. */
export interface ReadyMessage {
  readonly tag: typeof ipcTag;
  readonly type: "ready";
}

/** Worker to primary: the HTTP server is listening. */
export interface ListeningMessage {
  readonly tag: typeof ipcTag;
  readonly type: "listening";
  readonly host: string;
  readonly port: number;
}

/** Worker to primary: start-up failed; the worker exits next. */
export interface FailedMessage {
  readonly tag: typeof ipcTag;
  readonly type: "failed";
  readonly message: string;
}

/** A prepared transaction of any kind, as its kind encodes it for JSON (`TxKind.encode`). */
export interface EncodedPrepared {
  readonly kind: string;
  readonly wire: unknown;
}

/** Primary to worker: the answer to one request, of type `broadcastResult` or `legacyResult`. */
export type IpcResult<Ok, Type extends string = string> =
  | ({ readonly tag: typeof ipcTag; readonly type: Type; readonly requestId: number; readonly ok: true } & Ok)
  | {
      readonly tag: typeof ipcTag;
      readonly type: Type;
      readonly requestId: number;
      readonly ok: false;
      readonly code: ErrorCode;
      readonly message: string;
    };

/** Worker to primary: a transaction the worker has prepared (parsed and signature-checked). */
export interface BroadcastRequest {
  readonly tag: typeof ipcTag;
  readonly type: "broadcast";
  readonly requestId: number;
  readonly bytes: string;
  /** The door it was posted through, or null for any kind (Broadcaster.broadcast). */
  readonly door: Door | null;
  readonly prepared: EncodedPrepared;
  readonly mode: BroadcastMode;
}

/** Primary to worker: the engine's answer to one BroadcastRequest (the transaction's id). */
export type BroadcastResponse = IpcResult<{ readonly id: string }, "broadcastResult">;

/**
 * Worker to primary: a body POSTed to the legacy routes. The primary holds the node key that
 * re-makes a CREATE; a TRANSFER comes prepared by the worker (its signatures checked there).
 */
export interface LegacyPostRequest {
  readonly tag: typeof ipcTag;
  readonly type: "legacyPost";
  readonly requestId: number;
  readonly bytes: string;
  readonly prepared: EncodedPrepared | null;
}

/** Worker to primary: a legacy status, which needs the primary's pending pool. */
export interface LegacyStatusRequest {
  readonly tag: typeof ipcTag;
  readonly type: "legacyStatus";
  readonly requestId: number;
  readonly id: string;
}

export type LegacyRequest = LegacyPostRequest | LegacyStatusRequest;

/** Primary to worker: the answer to one LegacyRequest (a LegacyPosted, or a status or null). */
export type LegacyResponse = IpcResult<{ readonly value: LegacyPosted | LegacyStatus | null }, "legacyResult">;

export type PrimaryMessage = StartMessage | CloseMessage | BroadcastResponse | LegacyResponse;
export type WorkerMessage = ReadyMessage | ListeningMessage | FailedMessage | BroadcastRequest | LegacyRequest;

export function isIpcMessage(value: unknown): value is { readonly tag: typeof ipcTag; readonly type: string } {
  return typeof value === "object" && value !== null && (value as { tag?: unknown }).tag === ipcTag;
}

export function encodeBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

export function decodeBytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "base64"));
}

/** A prepared transaction of any kind, for the channel (its kind encodes it). */
export function encodePrepared(tx: PreparedBase): EncodedPrepared {
  const kind = kindOf(tx);
  return { kind: kind.name, wire: kind.encode(tx) };
}

/**
 * The prepared transaction a worker sent, decoded by its kind. The worker is this node's own
 * process, so a malformed message is a bug on our side (an assertion), not bad input.
 */
export function decodePrepared(encoded: EncodedPrepared): PreparedBase {
  return kindNamed(encoded.kind).decode(encoded.wire);
}
