// The block writers' shared invariants, judged alone: each refusal and its message, the same
// for every backend (the conformance suite drives them through each writer).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkHistory, checkInitChain, checkLegacyPosition, checkLegacySpend, checkNewId, checkNextHeight, checkSpend, checkSpendTaken } from "../../../src/store/blockInvariants.js";
import type { BlockWrite } from "../../../src/store/store.js";

// The first line: node:assert may add a diff of the values after the message.
const refused = (run: () => void, message: string): void =>
  assert.throws(run, (error: Error) => error.name === "AssertionError" && error.message.split("\n")[0] === message);
const empty = (height: number, history?: BlockWrite["history"]): BlockWrite => ({ height, appHash: "", txs: [], ...(history === undefined ? {} : { history }) });

describe("block invariants", () => {
  it("initChain once, before the first block", () => {
    checkInitChain(null, 0);
    refused(() => checkInitChain("c", 0), "initChain runs once; chain c exists");
    refused(() => checkInitChain(null, 3), "initChain runs before the first block");
  });

  it("heights follow each other", () => {
    checkNextHeight(empty(4), 3);
    refused(() => checkNextHeight(empty(5), 3), "block heights are contiguous");
  });

  it("a history on a v1 chain only, grown by a leaf only for a block that holds a transaction", () => {
    const history = { size: 2, nodes: [], blockNodes: [] };
    assert.equal(checkHistory(empty(1), "bigchaindb", 0), undefined);
    assert.equal(checkHistory(empty(1, history), "v1", 2), history);
    refused(() => checkHistory(empty(1), "v1", 2), "a v1 chain's block has no history");
    refused(() => checkHistory(empty(1, history), "bigchaindb", 2), "a bigchaindb chain's block has a history");
    refused(() => checkHistory(empty(1, history), "v1", 1), "a history of 1 grew by 1");
  });

  it("ids once, spends of existing unspent outputs, legacy positions in order", () => {
    checkNewId("t", undefined);
    refused(() => checkNewId("legacy t", 7), "legacy t is stored twice");
    checkSpend("t spends o", true, false);
    refused(() => checkSpend("t spends o", false, false), "t spends o, which does not exist");
    refused(() => checkSpend("t spends o", true, true), "t spends o, already spent");
    refused(() => checkSpend("t spends o", true, true, "u"), "t spends o, already spent by u");
    checkLegacySpend("t spends o", true, false);
    refused(() => checkLegacySpend("t spends o", true, true), "t spends o, which is already spent");
    checkSpendTaken("t spends o", 1);
    refused(() => checkSpendTaken("t spends o", 0), "t spends o: the output row did not take the spend");
    checkLegacyPosition("t", 2, 1, 3);
    refused(() => checkLegacyPosition("t", 1, 1, 3), "legacy t: bad position");
    refused(() => checkLegacyPosition("t", 3, 1, 3), "legacy t: bad position");
  });
});
