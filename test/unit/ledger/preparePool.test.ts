// The prepare pool gives each request what `prepareBytes` gives on the calling thread, in the
// request's own promise, whether the turn's requests went out in batches (a few) or as a job
// every worker takes from (many: a block), across more than one job, with bad bytes, broken
// signatures and doors mixed in.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { legacyDoor, v1Door } from "../../../src/ledger/doors.js";
import { prepareBytes } from "../../../src/ledger/prepared.js";
import { PreparePool, preparePoolOptionsDefault, sharedJobTxsMax } from "../../../src/ledger/preparePool.js";
import type { Door } from "../../../src/ledger/txKind.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";

const { sharedTxsMin } = preparePoolOptionsDefault;
const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 2, batchTxsMax: 8 });
after(() => pool.close());

const owner = keypairOf("pool-owner");
const valid = Array.from({ length: 40 }, (_, i) => bytesOf(create(owner, 1n, { pool: i })));

/** `count` requests: valid transactions, a few broken ones and doors, in a fixed mix. */
function requests(count: number): { bytes: Uint8Array; door: Door | undefined }[] {
  return Array.from({ length: count }, (_, i) => {
    const bytes = valid[i % valid.length]!;
    if (i % 11 === 3) return { bytes: Buffer.from("{not json"), door: undefined };
    if (i % 11 === 5) {
      // One signature byte changed: parses, fails its fulfillment.
      const tampered = Buffer.from(bytes);
      const at = tampered.indexOf("pEDE") + 10;
      tampered[at] = tampered[at] === 0x41 ? 0x42 : 0x41;
      return { bytes: tampered, door: undefined };
    }
    if (i % 11 === 7) return { bytes, door: legacyDoor };
    return { bytes, door: i % 2 === 0 ? v1Door : undefined };
  });
}

/** `alone`: no other turn is in the pool meanwhile, so its count is this turn's. */
async function checkTurn(count: number, alone = true): Promise<void> {
  const turn = requests(count);
  const answers = turn.map(({ bytes, door }) => pool.prepare(bytes, door));
  if (alone) assert.equal(pool.queuedCount, count, "all queued until answered");
  const results = await Promise.all(answers);
  turn.forEach(({ bytes, door }, i) => assert.deepStrictEqual(results[i], prepareBytes(bytes, door), `request ${i} of ${count}`));
  if (alone) assert.equal(pool.queuedCount, 0);
  const codes = new Set(results.map((result) => ("code" in result ? result.code : "ok")));
  assert.ok(codes.has("ok") && codes.size >= 3, `valid and several rejections among ${[...codes].join(", ")}`);
}

describe("the prepare pool", () => {
  it("answers a turn of a few in batches", () => checkTurn(sharedTxsMin - 1));

  it("answers a turn of many as one shared job", () => checkTurn(sharedTxsMin * 3 + 1));

  it("answers a turn larger than a job as several shared jobs", () => checkTurn(sharedJobTxsMax + sharedTxsMin + 3));

  it("answers turns that overlap", async () => {
    const later = new Promise((resolve) => setImmediate(resolve)).then(() => checkTurn(9, false));
    await Promise.all([checkTurn(sharedTxsMin * 2, false), later]);
    assert.equal(pool.queuedCount, 0);
  });
});
