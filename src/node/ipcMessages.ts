// The messages between the primary process (ledger, engine, writing store) and its HTTP worker
// processes (server.workers > 1), over node:cluster's IPC channel. That channel carries JSON:
// a bigint does not survive it and a Uint8Array arrives as an object of numbered keys, so
// amounts travel as decimal strings and bytes as base64, and are decoded on arrival.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { BroadcastMode } from "../engine/broadcaster.js";
import type { ErrorCode } from "../errors/codes.js";
import type { Config } from "../config/schema.js";
import type { LegacyPosted, LegacyStatus } from "../http/routes/legacy.js";
import type { PreparedLegacyTx } from "../legacy/types.js";
import type { CommittedOutput, Operation, OutputRef } from "../transaction/committed.js";
import type { CanonicalForm, PreparedInput, PreparedTx } from "../transaction/types.js";

/** Every message carries this tag, so the node ignores IPC traffic that is not its own. */
export const ipcTag = "ledgerd";

interface EncodedOutput {
  readonly outputIndex: number;
  readonly amount: string;
  readonly conditionUri: string;
  readonly publicKeys: readonly string[];
}

export interface EncodedPreparedTx {
  readonly id: string;
  readonly operation: Operation;
  readonly assetId: string;
  readonly json: string;
  readonly assetData: string | null;
  readonly metadata: string | null;
  readonly inputs: readonly PreparedInput[];
  readonly outputs: readonly EncodedOutput[];
  readonly outputsTotal: string;
  readonly signaturesValid: boolean;
  readonly form: CanonicalForm;
}

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

/** Worker to primary: a transaction the worker has prepared (parsed and signature-checked). */
export interface BroadcastRequest {
  readonly tag: typeof ipcTag;
  readonly type: "broadcast";
  readonly requestId: number;
  readonly bytes: string;
  readonly prepared: EncodedPreparedTx;
  readonly mode: BroadcastMode;
}

/** Primary to worker: the engine's answer to one BroadcastRequest. */
export type BroadcastResponse =
  | {
      readonly tag: typeof ipcTag;
      readonly type: "broadcastResult";
      readonly requestId: number;
      readonly ok: true;
      readonly id: string;
    }
  | {
      readonly tag: typeof ipcTag;
      readonly type: "broadcastResult";
      readonly requestId: number;
      readonly ok: false;
      readonly code: ErrorCode;
      readonly message: string;
    };

/**
 * Worker to primary: a body POSTed to the legacy routes. The primary holds the node key that
 * re-makes a CREATE; a TRANSFER comes prepared by the worker (its signatures checked there).
 */
export interface LegacyPostRequest {
  readonly tag: typeof ipcTag;
  readonly type: "legacyPost";
  readonly requestId: number;
  readonly bytes: string;
  /** JSON-safe as it is: strings, numbers and arrays only. */
  readonly prepared: PreparedLegacyTx | null;
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
export type LegacyResponse =
  | {
      readonly tag: typeof ipcTag;
      readonly type: "legacyResult";
      readonly requestId: number;
      readonly ok: true;
      readonly value: LegacyPosted | LegacyStatus | null;
    }
  | {
      readonly tag: typeof ipcTag;
      readonly type: "legacyResult";
      readonly requestId: number;
      readonly ok: false;
      readonly code: ErrorCode;
      readonly message: string;
    };

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

export function encodePreparedTx(tx: PreparedTx): EncodedPreparedTx {
  return {
    id: tx.id,
    operation: tx.operation,
    assetId: tx.assetId,
    json: tx.json,
    assetData: tx.assetData,
    metadata: tx.metadata,
    inputs: tx.inputs.map((input) => ({ fulfills: input.fulfills, conditionUri: input.conditionUri })),
    outputs: tx.outputs.map((output) => ({ ...output, amount: output.amount.toString() })),
    outputsTotal: tx.outputsTotal.toString(),
    signaturesValid: tx.signaturesValid,
    form: tx.form,
  };
}

/**
 * The PreparedTx a worker sent. The worker is this node's own process, so a malformed message
 * is a bug on our side (an assertion), not bad input.
 */
export function decodePreparedTx(encoded: EncodedPreparedTx): PreparedTx {
  const amount = (text: string): bigint => {
    assert.match(text, /^(?:0|[1-9][0-9]*)$/, "IPC amount is a decimal string");
    return BigInt(text);
  };
  const outputs: CommittedOutput[] = encoded.outputs.map((output) => ({
    outputIndex: output.outputIndex,
    amount: amount(output.amount),
    conditionUri: output.conditionUri,
    publicKeys: [...output.publicKeys],
  }));
  const inputs: PreparedInput[] = encoded.inputs.map((input) => ({
    fulfills: input.fulfills === null ? null : decodeOutputRef(input.fulfills),
    conditionUri: input.conditionUri,
  }));
  return {
    id: encoded.id,
    operation: encoded.operation,
    assetId: encoded.assetId,
    json: encoded.json,
    assetData: encoded.assetData,
    metadata: encoded.metadata,
    inputs,
    outputs,
    outputsTotal: amount(encoded.outputsTotal),
    signaturesValid: encoded.signaturesValid,
    form: encoded.form,
  };
}

function decodeOutputRef(ref: OutputRef): OutputRef {
  return { transactionId: ref.transactionId, outputIndex: ref.outputIndex };
}

/**
 * The PreparedLegacyTx a worker sent, rebuilt field by field (nothing else rides along). The
 * worker is this node's own process: a malformed message is our bug, an assertion.
 */
export function decodePreparedLegacyTx(encoded: PreparedLegacyTx): PreparedLegacyTx {
  assert.ok(encoded.variant === "A" || encoded.variant === "B", "IPC legacy variant");
  assert.ok(encoded.operation === "CREATE" || encoded.operation === "TRANSFER", "IPC legacy operation");
  return {
    id: encoded.id,
    variant: encoded.variant,
    operation: encoded.operation,
    json: encoded.json,
    spends: encoded.spends.map((ref) => ({ txid: ref.txid, cid: ref.cid })),
    outputs: encoded.outputs.map((o) => ({
      cid: o.cid,
      conditionUri: o.conditionUri,
      publicKeys: [...o.publicKeys],
    })),
    fulfilledUris: [...encoded.fulfilledUris],
    creator: encoded.creator,
  };
}
