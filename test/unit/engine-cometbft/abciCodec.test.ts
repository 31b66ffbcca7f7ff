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
