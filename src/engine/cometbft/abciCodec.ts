// The ABCI socket protocol's framing (CometBFT v0.38 `abci/types/messages.go`, `libs/protoio`):
// every message is a protobuf `tendermint.abci.Request` or `Response`, preceded by its length as
// an unsigned protobuf varint (uvarint). The messages themselves are cosmjs-types' v0.38 codecs.
import assert from "node:assert/strict";
import { MisbehaviorType, Request, Response, type Misbehavior as AbciMisbehavior } from "cosmjs-types/tendermint/abci/types";
import type { Timestamp } from "cosmjs-types/google/protobuf/timestamp";
import type { Misbehavior } from "../../ledger/ledgerApp.js";
import type { EvidenceType } from "../../store/store.js";

/** A uvarint of a length that fits in 2^53 has at most 8 bytes; 10 is Go's MaxVarintLen64. */
const uvarintBytesMax = 10;

/** Bad framing from the peer: too long, or a length that is not a uvarint. */
export class AbciFrameError extends Error {
  override readonly name = "AbciFrameError";
}

/** `message` with its uvarint length in front, ready for the socket. */
export function encodeFrame(message: Uint8Array): Buffer {
  const head = encodeUvarint(message.length);
  const frame = Buffer.allocUnsafe(head.length + message.length);
  frame.set(head, 0);
  frame.set(message, head.length);
  return frame;
}

export function encodeUvarint(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a uvarint: ${value}`);
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

/**
 * Reads a uvarint at `offset`: its value and how many bytes it took, or null when `bytes` ends
 * before the varint does. Throws AbciFrameError on a varint longer than `uvarintBytesMax`.
 */
export function decodeUvarint(bytes: Uint8Array, offset: number): { value: number; length: number } | null {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < uvarintBytesMax; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) return null;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) {
      if (!Number.isSafeInteger(value)) throw new AbciFrameError("message length does not fit in 2^53");
      return { value, length: i + 1 };
    }
    scale *= 0x80;
  }
  throw new AbciFrameError(`message length is longer than ${uvarintBytesMax} bytes`);
}

/**
 * Cuts a byte stream into messages. Chunks arrive as the socket gives them; `push` returns the
 * whole messages they complete, in order, and keeps the rest for the next chunk.
 *
 * A large message (a FinalizeBlock of a full block is ~1 MB) arrives in many chunks: they are
 * kept as they come and joined once it is complete, not copied onto the rest at every chunk,
 * which made the copying quadratic (measured: 2.5% of a node's time under a flood).
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The bytes (length prefix and body) of the incomplete message at the front, once known. */
  private awaited = 0;

  constructor(private readonly messageBytesMax: number) {}

  push(chunk: Buffer): Uint8Array[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < this.awaited) return [];
    const buffer = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.buffered);
    const messages: Uint8Array[] = [];
    let offset = 0;
    this.awaited = 0;
    for (;;) {
      const head = decodeUvarint(buffer, offset);
      if (head === null) break;
      if (head.value > this.messageBytesMax) {
        throw new AbciFrameError(`message of ${head.value} bytes is over the limit of ${this.messageBytesMax}`);
      }
      const end = offset + head.length + head.value;
      if (end > buffer.length) {
        this.awaited = end - offset;
        break;
      }
      messages.push(buffer.subarray(offset + head.length, end));
      offset = end;
    }
    const rest = buffer.subarray(offset);
    this.chunks = rest.length === 0 ? [] : [rest];
    this.buffered = rest.length;
    return messages;
  }

  /** Bytes received that do not yet make a whole message. */
  get bufferedBytes(): number {
    return this.buffered;
  }
}

/**
 * A Request. CheckTx and Flush, nearly every request a busy node gets, are read directly: the
 * generic decoder costs more than the rest of an accepted recheck. Anything else, or a CheckTx
 * with fields beyond `tx` and `type`, goes to the generic decoder.
 */
export function decodeRequest(message: Uint8Array): Request {
  return decodeCheckTxOrFlush(message) ?? Request.decode(message);
}

// Tags (field number << 3 | wire type) of tendermint.abci.Request v0.38 and RequestCheckTx.
const requestFlushTag = (2 << 3) | 2;
const requestCheckTxTag = (8 << 3) | 2;
const checkTxTxTag = (1 << 3) | 2;
const checkTxTypeTag = (2 << 3) | 0;

/** `{ checkTx }` or `{ flush }` when `message` is exactly one of those, else null. */
export function decodeCheckTxOrFlush(message: Uint8Array): Request | null {
  if (message.length === 2 && message[0] === requestFlushTag && message[1] === 0) return { flush: {} };
  if (message[0] !== requestCheckTxTag) return null;
  const body = decodeUvarint(message, 1);
  if (body === null || 1 + body.length + body.value !== message.length) return null;
  let tx: Uint8Array = new Uint8Array(0);
  let type = 0;
  let at = 1 + body.length;
  while (at < message.length) {
    const tag = message[at++];
    const field = decodeUvarint(message, at);
    if (field === null) return null;
    at += field.length;
    if (tag === checkTxTxTag) {
      if (at + field.value > message.length) return null;
      tx = message.subarray(at, at + field.value);
      at += field.value;
    } else if (tag === checkTxTypeTag) {
      // An int32 enum, read as the generic decoder does: the low 32 bits, signed.
      type = (field.value % 4_294_967_296) | 0;
    } else {
      return null;
    }
  }
  return { checkTx: { tx, type } };
}

export function encodeRequest(request: Request): Buffer {
  return encodeFrame(Request.encode(request).finish());
}

export function decodeResponse(message: Uint8Array): Response {
  return Response.decode(message);
}

export function encodeResponse(response: Response): Buffer {
  return encodeFrame(Response.encode(response).finish());
}

/** The name of the one method a Request or Response carries (`checkTx`, `flush`, ...), or null. */
export function methodOf(message: Request | Response): string | null {
  for (const [key, value] of Object.entries(message)) if (value !== undefined) return key;
  return null;
}

/**
 * FinalizeBlock's `misbehavior` as the ledger records it (CometBFT v0.38
 * `proto/tendermint/abci/types.proto`: Misbehavior {type 1, validator 2 {address 1, power 3},
 * height 3, time 4, total_voting_power 5}, the decoder's field numbers). The address is written
 * as CometBFT writes addresses, uppercase hex; the time as Go's RFC 3339 with nanoseconds.
 */
export function misbehaviorOf(list: readonly AbciMisbehavior[]): Misbehavior[] {
  return list.map((m) => ({
    type: evidenceTypeOf(m.type),
    validatorAddress: Buffer.from(m.validator?.address ?? new Uint8Array(0)).toString("hex").toUpperCase(),
    power: safeNumber("misbehavior power", m.validator?.power ?? 0n),
    infractionHeight: safeNumber("misbehavior height", m.height),
    time: rfc3339Of(m.time),
    totalPower: safeNumber("misbehavior total voting power", m.totalVotingPower),
  }));
}

function evidenceTypeOf(type: MisbehaviorType): EvidenceType {
  if (type === MisbehaviorType.DUPLICATE_VOTE) return "duplicate_vote";
  if (type === MisbehaviorType.LIGHT_CLIENT_ATTACK) return "light_client_attack";
  return "unknown";
}

/** CometBFT's int64 figures of a validator set fit: its total power is capped at 2^60 / 8. */
function safeNumber(what: string, value: bigint): number {
  const number = Number(value);
  assert(Number.isSafeInteger(number) && number >= 0, `${what} ${value} is out of range`);
  return number;
}

/** As Go's `time.RFC3339Nano` writes a UTC time: the fraction's trailing zeros dropped, none when 0. */
export function rfc3339Of(time: Timestamp | undefined): string {
  const seconds = Number(time?.seconds ?? 0n);
  const nanos = time?.nanos ?? 0;
  const whole = new Date(seconds * 1000).toISOString().replace(/\.000Z$/, "");
  const fraction = nanos === 0 ? "" : `.${String(nanos).padStart(9, "0").replace(/0+$/, "")}`;
  return `${whole}${fraction}Z`;
}
