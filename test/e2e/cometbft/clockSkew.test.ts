// Issue 38: clock skew on a real 4-validator testnet. Two validators' whole nodes run with their
// clocks moved: node 1 three minutes ahead, node 2 thirty seconds behind. Their CometBFT is the
// test-only clock-offset build (scripts/build-cometbft-variant.sh: Go's time.Now moved by
// CMT_CLOCK_OFFSET; libfaketime cannot reach a Go program), their ledgerd runs under libfaketime.
// Transactions posted to the skewed nodes and to the honest ones all commit; every node serves
// them and agrees on the app hash; each block's time rises and is BFT time, the weighted median
// of the previous height's precommit timestamps by CometBFT's own rule, an honest validator's
// timestamp when all four precommits made the commit, though node 1 signs three minutes ahead; `ledgerd doctor` says node 1's clock is
// ahead (its own precommits) and node 2's behind (a block time ahead of it). Then node 2 runs 90 s behind, past CometBFT's
// block_time_tolerance (60 s): its CometBFT finds the next block "too far in the future" and its
// consensus stops, while the other three go on; with its clock right again it catches up.
// It needs CometBFT (scripts/install-cometbft.sh) and faketime (scripts/prerequisites.mjs), and
// builds the variant once into .cache.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { createTestnet, logFile, startTestnet, stopTestnet, type NodeLaunch, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { create, transfer } from "../../helpers/txFactory.js";
import { ageGenesis, clockTools, fakeTimeEnv, skewedLaunch, type ClockTools } from "../../helpers/clockSkew.js";
import { waitFor } from "../../helpers/waitFor.js";
import { freeBasePort, getText, nodeOf, post, requireCometBft, rpc, waitForAgreement, withoutLedgerdEnv } from "./network.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const validators = 4;
/** Each skewed node's index and offset: Go's duration and libfaketime's form of it, in ms. */
const skews = [
  { index: 1, go: "3m", faketime: "+180s", ms: 180_000 },
  { index: 2, go: "-30s", faketime: "-30s", ms: -30_000 },
] as const;
const honestIndexes = [0, 3];
/** Past CometBFT v0.38's block_time_tolerance (60 s by default) behind the network. */
const farBehind = { index: 2, go: "-90s", faketime: "-90s" } as const;
/**
 * The genesis is made this far in the past: a CometBFT whose clock reads before the genesis time
 * sleeps until then before it starts (node.go OnStart), at every start.
 */
const genesisAgeMs = 60 * 60_000;
/** Rounds of posts, each one CREATE to every node and one TRANSFER of the chain. */
const rounds = 3;
const repo = fileURLToPath(new URL("../../../", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "ledgerd-clockskew-"));
let manifest: TestnetManifest;
let tools: ClockTools;

/** Both processes of a skewed node run off: CometBFT by the variant, ledgerd by libfaketime. */
function launchOf(node: TestnetNode, among: readonly { index: number; go: string; faketime: string }[] = skews): NodeLaunch | undefined {
  const skew = among.find((s) => manifest.nodes[s.index]?.name === node.name);
  return skew === undefined ? undefined : skewedLaunch(tools, skew.go, skew.faketime);
}

before(async () => {
  const cometbft = requireCometBft();
  tools = clockTools();
  manifest = createTestnet({ validators, dir: root, basePort: await freeBasePort(validators), cometbft, timeoutCommitMs: 150, logLevel: "warn" });
  ageGenesis(root, manifest.nodes, genesisAgeMs);
  await startTestnet(root, { launch: (node) => launchOf(node) });
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

const idOf = (tx: JsonObject): string => tx["id"] as string;
const ms = (rfc3339: string): number => Date.parse(rfc3339);

/** An RFC 3339 time to the nanosecond, as CometBFT writes them (`2026-11-28T21:51:36.951111458Z`). */
function nanosOf(rfc3339: string): bigint {
  const fraction = /\.(\d+)Z$/.exec(rfc3339)?.[1] ?? "";
  return BigInt(Date.parse(rfc3339.replace(/\.\d+Z$/, "Z"))) * 1_000_000n + BigInt(fraction.padEnd(9, "0").slice(0, 9));
}

/**
 * BFT time as CometBFT computes it (v0.38 state.MedianTime, cmttime.WeightedMedian): the
 * precommits present (for the block or for nil), by time, each weighing its validator's power; the first whose weight reaches
 * what is left of half the present power, halved with integer division. So with three precommits
 * of equal power present it is the earliest but one only when that half is above one weight: for
 * four equal validators with one absent, it is the earliest of the three.
 */
function bftTime(votes: readonly { readonly timestamp: string; readonly power: bigint }[]): string {
  const sorted = [...votes].sort((a, b) => (nanosOf(a.timestamp) < nanosOf(b.timestamp) ? -1 : nanosOf(a.timestamp) > nanosOf(b.timestamp) ? 1 : 0));
  let median = sorted.reduce((sum, v) => sum + v.power, 0n) / 2n;
  for (const vote of sorted) {
    if (median <= vote.power) return vote.timestamp;
    median -= vote.power;
  }
  assert.fail("no precommit present");
}

describe("clock skew: a validator three minutes ahead and one thirty seconds behind", () => {
  it("the variant's clock and libfaketime's each move by their offset", () => {
    for (const skew of skews) {
      // `cometbft init` stamps the genesis with its clock (cmttime.Now).
      const home = join(root, `clock-probe-${skew.index}`);
      const started = Date.now();
      const init = spawnSync(tools.cometbft, ["init", "--home", home], { encoding: "utf8", env: { ...process.env, CMT_CLOCK_OFFSET: skew.go } });
      assert.equal(init.status, 0, init.stderr);
      const genesis = ms((JSON.parse(readFileSync(join(home, "config", "genesis.json"), "utf8")) as { genesis_time: string }).genesis_time);
      assert.ok(genesis >= started + skew.ms && genesis <= Date.now() + skew.ms, `genesis ${new Date(genesis).toISOString()} for ${skew.go}`);
      const node = spawnSync(process.execPath, ["-e", "console.log(Date.now())"], { encoding: "utf8", env: { ...process.env, ...fakeTimeEnv(tools, skew.faketime) } });
      // libfaketime keeps the whole seconds of the offset; allow a second either side.
      const nodeNow = Number(node.stdout.trim()) - skew.ms;
      assert.ok(Math.abs(nodeNow - Date.now()) < 5_000, `node under FAKETIME=${skew.faketime} read ${node.stdout}`);
    }
  });

  it("commits what each node is sent, agrees on every app hash, keeps BFT time to the honest clocks", { timeout: 5 * 60_000 }, async (t) => {
    const owner = makeRandomKeypair();
    let last = create(owner, 1n, { clock: "skew", run: String(Date.now()) });
    assert.equal((await post(nodeOf(manifest, 1), last, "commit")).status, 202);
    const committed = [idOf(last)];
    for (let round = 0; round < rounds; round++) {
      for (const node of manifest.nodes) {
        const asset = create(makeRandomKeypair(), 1n, { clock: "skew", round, node: node.name });
        assert.equal((await post(node, asset, "commit")).status, 202, `${node.name} round ${round}`);
        committed.push(idOf(asset));
      }
      // The chain's next TRANSFER goes to a skewed node and an honest one in turn.
      const next = transfer([{ tx: last, outputIndex: 0 }], [owner], [{ publicKeys: [owner.publicKey], amount: 1n }], { round });
      assert.equal((await post(nodeOf(manifest, round % validators), next, "commit")).status, 202);
      committed.push(idOf(next));
      last = next;
    }
    const agreed = await waitForAgreement(manifest.nodes, 1);
    for (const node of manifest.nodes) {
      for (const id of committed) assert.notEqual(await getText(node, `/api/v1/transactions/${id}`), null, `${node.name} lacks ${id}`);
    }

    // Each block's time: above its parent's, and within its last commit's honest timestamps.
    const addressOf = new Map<string, number>();
    const validatorSet = await rpc(nodeOf(manifest, 0), "validators");
    for (const node of manifest.nodes) {
      const key = JSON.parse(readFileSync(join(root, node.home, "config", "priv_validator_key.json"), "utf8")) as { address: string };
      addressOf.set(key.address, manifest.nodes.indexOf(node));
    }
    assert.equal(validatorSet.validators.length, validators);
    const powerOf = new Map((validatorSet.validators as { address: string; voting_power: string }[]).map((v) => [v.address, BigInt(v.voting_power)]));
    const aheadBy: number[] = [];
    let everyoneSigned = 0;
    let previous = 0;
    for (let height = 1; height <= agreed.height; height++) {
      const header = (await rpc(nodeOf(manifest, 0), `block?height=${height}`)).block;
      const time = ms(header.header.time);
      assert.ok(time > previous, `height ${height}: ${header.header.time} not after the block before`);
      previous = time;
      if (height === 1) continue;
      // Every precommit in the commit counts, one for nil (flag 3) as much as one for the block
      // (flag 2); only an absent validator's (flag 1) is left out.
      const signatures = (header.last_commit.signatures as { validator_address: string; timestamp: string; block_id_flag: number }[])
        .filter((s) => s.block_id_flag !== 1);
      const honest = signatures.filter((s) => honestIndexes.includes(addressOf.get(s.validator_address)!)).map((s) => ms(s.timestamp));
      const ahead = signatures.find((s) => addressOf.get(s.validator_address) === skews[0].index);
      if (ahead !== undefined) aheadBy.push(ms(ahead.timestamp) - time);
      const said = `height ${height}: block time ${header.header.time}, precommits ${JSON.stringify(header.last_commit.signatures.map((s: { validator_address: string }) => ({ ...s, node: addressOf.get(s.validator_address), signature: undefined })))}`;
      // The skewed clocks move no block time off CometBFT's rule, whichever precommits made the commit.
      assert.equal(header.header.time, bftTime(signatures.map((s) => ({ timestamp: s.timestamp, power: powerOf.get(s.validator_address)! }))), said);
      // With one clock ahead and one behind among four equal validators all present, that is an
      // honest vote. (With one of the four absent it is the earliest of three: the behind clock's,
      // when it is present.)
      if (signatures.length === validators) {
        everyoneSigned++;
        assert.ok(honest.length > 0 && time >= Math.min(...honest) && time <= Math.max(...honest), said);
      }
    }
    assert.ok(everyoneSigned > 0, "no block's last commit held every validator's precommit");
    assert.ok(aheadBy.length > 0 && aheadBy.every((d) => d > skews[0].ms - 10_000), `node 1's precommits ahead of block time by ${aheadBy.join(", ")} ms`);
    t.diagnostic(`${committed.length} transactions committed up to height ${agreed.height}; node 1's precommits ${Math.min(...aheadBy)}–${Math.max(...aheadBy)} ms ahead of the block time`);

    // ledgerd's own clock is moved too: its HTTP Date header reads the skewed time.
    for (const skew of skews) {
      const answered = Date.parse((await fetch(`http://${nodeOf(manifest, skew.index).http}/`)).headers.get("date")!);
      assert.ok(Math.abs(answered - skew.ms - Date.now()) < 5_000, `node ${skew.index}'s Date header ${new Date(answered).toISOString()}`);
    }
  });

  it("`ledgerd doctor` says which node's clock is ahead and which behind, on its own machine's clock", () => {
    const doctor = (index: number, faketime: string | null) => spawnSync(process.execPath,
      [...ledgerdArgs(), "doctor", "--data_dir", join(root, nodeOf(manifest, index).dataDir)],
      { encoding: "utf8", cwd: repo, env: { ...withoutLedgerdEnv(), ...(faketime === null ? {} : fakeTimeEnv(tools, faketime)) } });
    const ahead = doctor(skews[0].index, skews[0].faketime);
    assert.equal(ahead.status, 1, ahead.stdout + ahead.stderr);
    assert.match(ahead.stdout, /FAIL clock: this validator's last precommit is stamped 1[78]\d\.\d s ahead of the other validators'/);
    const behind = doctor(skews[1].index, skews[1].faketime);
    assert.equal(behind.status, 1, behind.stdout + behind.stderr);
    assert.match(behind.stdout, /FAIL clock: the latest block's time is [\d.]+ s ahead of this machine's clock/);
    const honest = doctor(honestIndexes[0]!, null);
    assert.match(honest.stdout, /ok {3}clock: no block time ahead of this machine's clock, no precommit of ours ahead/);
  });

  it("a validator 90 s behind stops at the next block (too far in the future for it); the rest go on; with its clock right it catches up", { timeout: 5 * 60_000 }, async (t) => {
    const node = nodeOf(manifest, farBehind.index);
    const others = manifest.nodes.filter((n) => n !== node);
    await stopTestnet(root, { nodes: [farBehind.index] });
    await startTestnet(root, { nodes: [farBehind.index], launch: (n) => launchOf(n, [farBehind]) });
    const log = logFile(root, node, "cometbft");
    const logged = readFileSync(log, "utf8").length;
    let sent = 0;
    const failure = await waitFor("node 2's CometBFT to refuse a block as too far in the future", async () => {
      assert.equal((await post(others[sent++ % others.length]!, create(makeRandomKeypair(), 1n, { clock: "far behind", sent }), "commit")).status, 202);
      const text = readFileSync(log, "utf8").slice(logged);
      return /CONSENSUS FAILURE!!!.*(block time \S+ \S+ \S+ UTC is too far in the future \(wall clock \S+ \S+)/.exec(text)?.[1] ?? null;
    }, { timeoutMs: 120_000 });
    const stuck = (await rpc(node, "status")).sync_info.latest_block_height as string;
    // The other three (3/4 of the power) commit on without it.
    for (let i = 0; i < 3; i++) assert.equal((await post(others[i]!, create(makeRandomKeypair(), 1n, { clock: "without node 2", i }), "commit")).status, 202);
    const without = await waitForAgreement(others, Number(stuck) + 1);
    assert.equal((await rpc(node, "status")).sync_info.latest_block_height, stuck, "node 2 stopped at the height it refused");

    await stopTestnet(root, { nodes: [farBehind.index] });
    await startTestnet(root, { nodes: [farBehind.index] });
    const healed = Date.now();
    const agreed = await waitForAgreement(manifest.nodes, without.height, 120_000);
    t.diagnostic(`node 2 stopped at height ${stuck} after ${sent} posts ("${failure})"), the rest went on to ${without.height}; with its clock right it agreed at ${agreed.height} ${Date.now() - healed} ms after its restart`);
  });
});
