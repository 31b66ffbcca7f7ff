import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CheckTxType } from "cosmjs-types/tendermint/abci/types";
import {
  AbciFrameError,
  FrameReader,
  decodeRequest,
  decodeUvarint,
  encodeFrame,
  encodeRequest,
  encodeUvarint,
  methodOf,
} from "../../../src/engine/cometbft/abciCodec.js";

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

  it("refuses a message longer than the limit before reading it", () => {
    const reader = new FrameReader(100);
    assert.throws(() => reader.push(Buffer.from(encodeUvarint(101))), /101 bytes is over the limit of 100/);
    assert.deepEqual(new FrameReader(100).push(encodeFrame(Buffer.alloc(100))).length, 1);
  });
});
