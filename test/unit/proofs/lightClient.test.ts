// Proofs across validator changes (docs/proofs.md "Across validator changes"): the verifier
// follows the set from a genesis through the light blocks at each change, as CometBFT's light
// client does, and refuses a header signed by a set that is not the trusted successor, a forged
// signature, a tampered set, a header past the trust period or from the future. Headers made with
// real Ed25519 keys (test/helpers/syntheticChain.ts); the set hash checked against a real network's.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { toHex } from "../../../src/proofs/encoding.js";
import type { LightBlock } from "../../../src/proofs/followValidatorChanges.js";
import { trustRootOf, trustedValidatorsOf, validatorSetHash, verifyTransactionProof, type TransactionProof, type VerifyOptions } from "../../../src/proofs/verify.js";
import { lightBlockOf, syntheticChain, syntheticGenesisTime, syntheticSignedHeader, syntheticValidator, type SyntheticChain } from "../../helpers/syntheticChain.js";

const chain = syntheticChain(3);
const root = trustRootOf(chain.genesis);
const trust = (lightBlocks: readonly LightBlock[], more: Partial<NonNullable<VerifyOptions["trust"]>> = {}): VerifyOptions => ({
  trust: { root, validatorChanges: lightBlocks, ...more },
});
const refusal = (proof: TransactionProof, options: VerifyOptions): string => {
  const verdict = verifyTransactionProof(proof, options);
  assert.equal(verdict.ok, false, "verified, but should not have");
  return verdict.ok ? "" : verdict.reason;
};
const hashOf = (set: SyntheticChain["sets"][number]): string => toHex(validatorSetHash(set)).toUpperCase();
const genesisMs = Date.parse(syntheticGenesisTime);

describe("proofs across validator changes", () => {
  it("hashes a validator set as CometBFT does (a real network's header names the same hash)", () => {
    const vector = JSON.parse(readFileSync(new URL("../../vectors/cometbft/proof.json", import.meta.url), "utf8")) as { validators: unknown[]; proof: TransactionProof };
    // The vector lists the validators in genesis order; the hash takes CometBFT's order.
    const shuffled = [...trustedValidatorsOf(vector)].reverse();
    assert.equal(toHex(validatorSetHash(shuffled)).toUpperCase(), vector.proof.signed_header!.header.validators_hash);
  });

  it("verifies a proof signed by the fourth set from the genesis, through three changes", () => {
    const verdict = verifyTransactionProof(chain.proof, trust(chain.lightBlocks));
    assert.ok(verdict.ok, verdict.ok ? "" : verdict.reason);
    assert.deepEqual(verdict.trusted, {
      rootHeight: 1,
      rootValidatorsHash: hashOf(chain.sets[0]!),
      height: chain.proof.height + 1,
      validatorsHash: hashOf(chain.sets[3]!),
      changes: 3,
    });
  });

  it("skips from the genesis when the set changed less than two thirds: only the new set's first headers", () => {
    // Each change replaces one of four: three quarters of the trusted set still sign.
    const firsts = chain.lightBlocks.filter((_, i) => i % 2 === 1);
    const verdict = verifyTransactionProof(chain.proof, trust(firsts));
    assert.ok(verdict.ok, verdict.ok ? "" : verdict.reason);
    assert.equal(verdict.trusted?.changes, 3);
  });

  it("refuses without the changes, and with the genesis set alone", () => {
    assert.match(refusal(chain.proof, trust([])), /give the changes up to height 41/);
    assert.match(refusal(chain.proof, trust(chain.lightBlocks.slice(0, 4))), /give the changes up to height 41/);
    const genesisOnly = { validators: trustedValidatorsOf(chain.genesis) };
    assert.match(refusal(chain.proof, genesisOnly), /more than two thirds must/);
  });

  it("refuses a header signed by a set that is not the trusted successor", () => {
    const strangers = [syntheticValidator(), syntheticValidator(), syntheticValidator(), syntheticValidator()];
    const blocks = [...chain.lightBlocks];
    // Adjacent to the header that named set 1: signed by strangers, with their set given.
    blocks[1] = lightBlockOf(syntheticSignedHeader({ height: 11, set: strangers, next: strangers }), strangers);
    assert.match(refusal(chain.proof, trust(blocks)), /height 11 is signed by set [0-9A-F]{64}, not the successor/);
    // Skipping to strangers: none of the trusted set signed.
    blocks[1] = lightBlockOf(syntheticSignedHeader({ height: 12, set: strangers, next: strangers }), strangers);
    assert.match(refusal(chain.proof, trust(blocks)), /0 of the trusted set's 40 power signed the header of height 12; more than a third must/);
  });

  it("refuses a forged signature", () => {
    const blocks = structuredClone(chain.lightBlocks) as LightBlock[];
    const sig = blocks[2]!.signed_header.commit.signatures[1]! as { signature: string };
    const bytes = Buffer.from(sig.signature, "base64");
    bytes[5]! ^= 1;
    sig.signature = bytes.toString("base64");
    assert.match(refusal(chain.proof, trust(blocks)), /height 20: the signature of validator [0-9a-f]{40} does not verify/);
  });

  it("refuses a signature that is not 64 bytes of base64, without throwing", () => {
    for (const bad of ["!!!", "AAAA", 5, `${"A".repeat(87)}=`]) {
      const blocks = structuredClone(chain.lightBlocks) as LightBlock[];
      (blocks[0]!.signed_header.commit.signatures[0]! as { signature: unknown }).signature = bad;
      assert.match(refusal(chain.proof, trust(blocks)), /height 10: the signature of validator [0-9a-f]{40} is not 64 bytes of base64/, String(bad));
    }
  });

  it("stops verifying a commit's signatures at the power a step needs, as CometBFT's light client", () => {
    // Three of four sign more than two thirds (and, skipping, more than a third of the trusted
    // set): the fourth signature is never read, so bytes that are no signature there pass.
    const blocks = structuredClone(chain.lightBlocks) as LightBlock[];
    for (const block of blocks) (block.signed_header.commit.signatures[3]! as { signature: string }).signature = "AAAA";
    const verdict = verifyTransactionProof(chain.proof, trust(blocks));
    assert.ok(verdict.ok, verdict.ok ? "" : verdict.reason);
  });

  it("refuses a tampered validator set: another power, or a key swapped", () => {
    const blocks = structuredClone(chain.lightBlocks) as LightBlock[];
    (blocks[3]!.validator_set.validators[0] as { voting_power: string }).voting_power = "1000";
    assert.match(refusal(chain.proof, trust(blocks)), /the validator set given for height 21 hashes to [0-9A-F]{64}, not the [0-9A-F]{64} its header names/);
    const swapped = structuredClone(chain.lightBlocks) as LightBlock[];
    (swapped[3]!.validator_set.validators[0] as { pub_key: { value: string } }).pub_key.value = Buffer.from(syntheticValidator().publicKey).toString("base64");
    assert.match(refusal(chain.proof, trust(swapped)), /hashes to/);
  });

  it("refuses a trusted header past the trust period, and a header from the future", () => {
    const hour = 3_600_000;
    const fresh = verifyTransactionProof(chain.proof, trust(chain.lightBlocks, { trustPeriodMs: hour, nowMs: genesisMs + hour / 2 }));
    assert.ok(fresh.ok, fresh.ok ? "" : fresh.reason);
    const stale = refusal(chain.proof, trust(chain.lightBlocks, { trustPeriodMs: hour, nowMs: genesisMs + 2 * hour }));
    assert.match(stale, /the trusted header of height 0 is older than the trust period \(3600000 ms\)/);
    // The genesis is fresh, but the headers come more than the clock drift after now.
    assert.match(refusal(chain.proof, trust(chain.lightBlocks, { nowMs: genesisMs })), /the header of height 10 is from the future/);
    assert.match(refusal(chain.proof, trust(chain.lightBlocks, { trustPeriodMs: hour })), /a trust period needs the time now/);
  });

  it("refuses light blocks out of order, of another chain, or a proof header the changes do not lead to", () => {
    const [b0, b1, b2, b3, ...rest] = chain.lightBlocks;
    assert.match(refusal(chain.proof, trust([b0!, b1!, b3!, b2!, ...rest])), /the header of height 20 is not after the trusted height 21/);
    // The last set first: one validator of the genesis's four signed it.
    assert.match(refusal(chain.proof, trust([...chain.lightBlocks].reverse())), /10 of the trusted set's 40 power/);
    const other = { ...chain.genesis, chain_id: "other" };
    assert.match(refusal(chain.proof, { trust: { root: trustRootOf(other), validatorChanges: chain.lightBlocks } }), /of chain synthetic-chain, not other/);
    const set = chain.sets[3]!;
    const forged = { ...chain.proof, signed_header: syntheticSignedHeader({ height: 41, set: set.slice(0, 2), next: set, appHash: chain.proof.app_hash }) };
    assert.match(refusal(forged, trust(chain.lightBlocks)), /signed by set/);
  });
});

describe("proofs across validator changes, on a real network's headers", () => {
  // Recorded by test/e2e/cometbft/elections.test.ts (LEDGERD_RECORD_VECTORS=1): two elections.
  const vector = JSON.parse(readFileSync(new URL("../../vectors/cometbft/validatorChanges.json", import.meta.url), "utf8")) as {
    genesis: unknown;
    validator_changes: { light_blocks: LightBlock[] };
    proof: TransactionProof;
  };
  const realRoot = trustRootOf(vector.genesis);
  const blocks = vector.validator_changes.light_blocks;
  const options = (validatorChanges: readonly LightBlock[]): VerifyOptions => ({ trust: { root: realRoot, validatorChanges } });

  it("follows the set from the genesis through both changes to the proof's header", () => {
    const verdict = verifyTransactionProof(vector.proof, options(blocks), vector.proof.transaction_id);
    assert.ok(verdict.ok, verdict.ok ? "" : verdict.reason);
    assert.equal(verdict.trusted?.changes, 2);
    assert.equal(verdict.trusted?.validatorsHash, vector.proof.signed_header!.header.validators_hash);
    for (const block of blocks) {
      const set = trustedValidatorsOf(block.validator_set);
      assert.equal(toHex(validatorSetHash(set)).toUpperCase(), block.signed_header.header.validators_hash);
    }
  });

  it("refuses the real headers altered: a set claimed as the successor, a forged signature, a set changed, a change left out", () => {
    const newFirst = Number(blocks[1]!.signed_header.header.height);
    const oldSet = { ...realRoot, height: newFirst, validators: trustedValidatorsOf(blocks[0]!.validator_set) };
    const claimed = verifyTransactionProof(vector.proof, { trust: { root: oldSet, validatorChanges: blocks.slice(1) } });
    assert.match(claimed.ok ? "" : claimed.reason, new RegExp(`height ${newFirst} is signed by set [0-9A-F]{64}, not the successor`));
    const forged = structuredClone(blocks);
    const sig = forged[3]!.signed_header.commit.signatures.find((x) => x.signature !== null)! as { signature: string };
    sig.signature = Buffer.from(Buffer.from(sig.signature, "base64").map((b, i) => (i === 9 ? b ^ 1 : b))).toString("base64");
    assert.match(refusal(vector.proof, options(forged)), /does not verify/);
    const changed = structuredClone(blocks);
    (changed[2]!.validator_set.validators as { voting_power: string }[]).pop();
    assert.match(refusal(vector.proof, options(changed)), /hashes to/);
    assert.match(refusal(vector.proof, options(blocks.slice(0, 2))), /give the changes up to height/);
  });
});
