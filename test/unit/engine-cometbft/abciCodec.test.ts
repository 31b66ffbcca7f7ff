import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CheckTxType, Request } from "cosmjs-types/tendermint/abci/types";
import {
  AbciFrameError,
  FrameReader,
  decodeCheckTxOrFlush,
  decodeRequest,
  decodeUvarint,
  encodeFrame,
  encodeRequest,
  encodeUvarint,
  methodOf,
  misbehaviorOf,
} from "../../../src/engine/cometbft/abciCodec.js";

/** The generic decoder sets every other member of the oneof to undefined; keep the one present. */
function present(request: Request): Request {
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined)) as Request;
}

describe("ABCI framing (uvarint length + protobuf)", () => {
  it("writes lengths as protobuf uvarints (Go binary.PutUvarint)", () => {
    assert.deepEqual([...encodeUvarint(0)], [0x00]);
    assert.deepEqual([...encodeUvarint(127)], [0x7f]);
    assert.deepEqual([...encodeUvarint(128)], [0x80, 0x01]);
    assert.deepEqual([...encodeUvarint(300)], [0xac, 0x02]);
    assert.deepEqual([...encodeUvarint(2 ** 35 + 5)], [0x85, 0x80, 0x80, 0x80, 0x80, 0x01]);
    assert.throws(() => encodeUvarint(-1), RangeError);
  });

  it("reads back every length it writes, and says when the bytes end too soon", () => {
    for (const value of [0, 1, 127, 128, 255, 300, 16_383, 16_384, 2 ** 21, 2 ** 35 + 5, Number.MAX_SAFE_INTEGER]) {
      const bytes = encodeUvarint(value);
      assert.deepEqual(decodeUvarint(bytes, 0), { value, length: bytes.length });
      assert.equal(decodeUvarint(bytes.subarray(0, bytes.length - 1), 0), null);
    }
    assert.throws(() => decodeUvarint(new Uint8Array(11).fill(0x80), 0), AbciFrameError);
  });

  it("encodes requests as CometBFT v0.38 does (field numbers of tendermint.abci.Request)", () => {
    // Request{flush: {}}: field 2, length 0; framed with its length 2.
    assert.deepEqual([...encodeRequest({ flush: {} })], [0x02, 0x12, 0x00]);
    // Request{echo: {message: "hi"}}: field 1 { field 1 "hi" }.
    assert.deepEqual([...encodeRequest({ echo: { message: "hi" } })], [0x06, 0x0a, 0x04, 0x0a, 0x02, 0x68, 0x69]);
    // Request{check_tx: {tx: [1,2], type: RECHECK}}: field 8 { field 1 bytes, field 2 varint 1 }.
    const checkTx = encodeRequest({ checkTx: { tx: Uint8Array.of(1, 2), type: CheckTxType.RECHECK } });
    assert.deepEqual([...checkTx], [0x08, 0x42, 0x06, 0x0a, 0x02, 0x01, 0x02, 0x10, 0x01]);
    const decoded = decodeRequest(checkTx.subarray(1));
    assert.equal(methodOf(decoded), "checkTx");
    assert.deepEqual([...decoded.checkTx!.tx], [1, 2]);
    assert.equal(decoded.checkTx!.type, CheckTxType.RECHECK);
  });

  it("reads CheckTx and Flush directly, exactly as the generic decoder does", () => {
    const cases: Request[] = [
      { flush: {} },
      { checkTx: { tx: Uint8Array.of(1, 2, 3), type: CheckTxType.NEW } },
      { checkTx: { tx: Uint8Array.of(9), type: CheckTxType.RECHECK } },
      { checkTx: { tx: new Uint8Array(0), type: CheckTxType.NEW } },
      { checkTx: { tx: new Uint8Array(70_000).fill(7), type: CheckTxType.RECHECK } },
    ];
    for (const request of cases) {
      const message = Request.encode(request).finish();
      const direct = decodeCheckTxOrFlush(message);
      assert.notEqual(direct, null, methodOf(request)!);
      assert.deepEqual(direct, present(Request.decode(message)));
      assert.deepEqual(present(decodeRequest(message)), present(Request.decode(message)));
    }
  });

  it("leaves every other request to the generic decoder, and agrees with it on random bytes", () => {
    const echo = Request.encode({ echo: { message: "x" } }).finish();
    assert.equal(decodeCheckTxOrFlush(echo), null);
    assert.deepEqual(decodeRequest(echo), Request.decode(echo));
    // A CheckTx with a field this reader does not know (3) goes to the generic decoder.
    assert.equal(decodeCheckTxOrFlush(Uint8Array.of(0x42, 0x05, 0x0a, 0x01, 0x09, 0x18, 0x01)), null);
    let seed = 7;
    const next = (n: number): number => {
      // xorshift32
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    let direct = 0;
    for (let i = 0; i < 5_000; i++) {
      // A CheckTx body of random fields: tx (1), type (2), and unknown ones (3, 4).
      const body: number[] = [];
      for (let f = next(4); f > 0; f--) {
        const tag = [0x0a, 0x10, 0x18, 0x22][next(4)]!;
        if ((tag & 7) === 2) {
          const length = next(6);
          body.push(tag, length, ...Array.from({ length }, () => next(256)));
        } else {
          body.push(tag, ...encodeUvarint(next(2) === 0 ? next(3) : next(2_000_000) * 4_000));
        }
      }
      const message = Uint8Array.from([0x42, ...encodeUvarint(body.length), ...body]);
      const read = decodeCheckTxOrFlush(message);
      if (read === null) continue;
      direct++;
      assert.deepEqual(read, present(Request.decode(message)), Buffer.from(message).toString("hex"));
    }
    assert.ok(direct > 1_000, `only ${direct} read directly`);
  });

  it("cuts a stream into messages whatever the chunk boundaries", () => {
    const messages = [Buffer.from("a"), Buffer.alloc(0), Buffer.alloc(300, 7), Buffer.from("last")];
    const stream = Buffer.concat(messages.map((m) => encodeFrame(m)));
    for (const size of [1, 2, 3, 7, stream.length]) {
      const reader = new FrameReader(1_000);
      const out: Uint8Array[] = [];
      for (let i = 0; i < stream.length; i += size) out.push(...reader.push(stream.subarray(i, i + size)));
      assert.deepEqual(out.map((m) => Buffer.from(m).toString("hex")), messages.map((m) => m.toString("hex")), `chunks of ${size}`);
      assert.equal(reader.bufferedBytes, 0);
    }
  });

  it("cuts large and small messages alike from random chunks (a block's message in many reads)", () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const messages = Array.from({ length: 300 }, (_, i) =>
      Buffer.alloc(next(4) === 0 ? 20_000 + next(200_000) : next(300), i % 251),
    );
    const stream = Buffer.concat(messages.map((m) => encodeFrame(m)));
    const reader = new FrameReader(1_000_000);
    const out: Uint8Array[] = [];
    for (let i = 0; i < stream.length; ) {
      const size = 1 + next(next(2) === 0 ? 70_000 : 40);
      out.push(...reader.push(stream.subarray(i, i + size)));
      i += size;
      assert.ok(reader.bufferedBytes < 300_000);
    }
    assert.equal(out.length, messages.length);
    out.forEach((m, i) => assert.ok(Buffer.from(m).equals(messages[i]!), `message ${i}`));
    assert.equal(reader.bufferedBytes, 0);
  });

  it("refuses a message longer than the limit before reading it", () => {
    const reader = new FrameReader(100);
    assert.throws(() => reader.push(Buffer.from(encodeUvarint(101))), /101 bytes is over the limit of 100/);
    assert.deepEqual(new FrameReader(100).push(encodeFrame(Buffer.alloc(100))).length, 1);
  });
});

/** A protobuf field: its tag (number << 3 | wire type) and its payload, as CometBFT's Go writes it. */
function field(number: number, wireType: 0 | 2, payload: Uint8Array | number | bigint): Uint8Array {
  const tag = encodeUvarint(number * 8 + wireType);
  if (wireType === 0) return Uint8Array.from([...tag, ...varint(BigInt(payload as number | bigint))]);
  const bytes = payload as Uint8Array;
  return Uint8Array.from([...tag, ...encodeUvarint(bytes.length), ...bytes]);
}

/** An int64 as protobuf's varint (two's complement for a negative one: ten bytes). */
function varint(value: bigint): number[] {
  let rest = BigInt.asUintN(64, value);
  const out: number[] = [];
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return out;
}

const join = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((part) => [...part]));

describe("FinalizeBlock's misbehavior (CometBFT v0.38 proto/tendermint/abci/types.proto)", () => {
  // Misbehavior {type = 1; Validator validator = 2 {address = 1; power = 3}; height = 3;
  // google.protobuf.Timestamp time = 4 {seconds = 1; nanos = 2}; total_voting_power = 5};
  // RequestFinalizeBlock.misbehavior = 3, height = 5; Request.finalize_block = 20.
  const address = Uint8Array.from({ length: 20 }, (_, i) => i * 13);
  const misbehavior = (type: number, power: bigint, height: bigint, seconds: bigint, nanos: number, total: bigint) =>
    join(
      field(1, 0, type),
      field(2, 2, join(field(1, 2, address), field(3, 0, power))),
      field(3, 0, height),
      field(4, 2, join(field(1, 0, seconds), ...(nanos === 0 ? [] : [field(2, 0, nanos)]))),
      field(5, 0, total),
    );
  const finalizeBlock = join(
    field(1, 2, Uint8Array.from([1, 2, 3])),
    field(3, 2, misbehavior(1, 10n, 41n, 1_764_259_445n, 123_456_000, 40n)),
    field(3, 2, misbehavior(2, 2n ** 40n, 7n, 0n, 0, 2n ** 42n)),
    field(3, 2, misbehavior(9, 1n, 1n, 1_764_259_445n, 1, 1n)),
    field(5, 0, 42n),
  );
  const message = field(20, 2, finalizeBlock);

  it("reads each misbehavior of a FinalizeBlock's bytes into the evidence the ledger records", () => {
    const request = decodeRequest(message);
    assert.equal(request.finalizeBlock?.height, 42n);
    const hex = Buffer.from(address).toString("hex").toUpperCase();
    assert.deepEqual(misbehaviorOf(request.finalizeBlock.misbehavior), [
      { type: "duplicate_vote", validatorAddress: hex, power: 10, infractionHeight: 41, time: "2025-11-27T16:04:05.123456Z", totalPower: 40 },
      { type: "light_client_attack", validatorAddress: hex, power: 2 ** 40, infractionHeight: 7, time: "1970-01-01T00:00:00Z", totalPower: 2 ** 42 },
      { type: "unknown", validatorAddress: hex, power: 1, infractionHeight: 1, time: "2025-11-27T16:04:05.000000001Z", totalPower: 1 },
    ]);
  });

  it("a FinalizeBlock without misbehavior has none; a figure past 2^53 stops the node", () => {
    assert.deepEqual(misbehaviorOf(decodeRequest(field(20, 2, field(5, 0, 3n))).finalizeBlock!.misbehavior), []);
    const huge = field(20, 2, field(3, 2, misbehavior(1, 2n ** 60n, 1n, 0n, 0, 1n)));
    assert.throws(() => misbehaviorOf(decodeRequest(huge).finalizeBlock!.misbehavior), { name: "AssertionError" });
  });
});
