// CometBFT's signed headers checked without CometBFT (src/proofs/cometHeader.ts), against a proof
// a real 4-validator network served (test/vectors/cometbft/proof.json, recorded from
// `ledgerd testnet` with the pinned CometBFT v0.38): the header hash is CometBFT's block id, each
// precommit signature verifies with node:crypto over the sign bytes computed here, and any
// change to a header field, the chain id or a signature fails the check.
import assert from "node:assert/strict";
import { createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { headerHash, precommitSignBytes, trustedValidatorsOf, verifyTransactionProof, type RpcHeader, type TransactionProof } from "../../../src/proofs/verify.js";
import { toHex } from "../../../src/proofs/encoding.js";

const vector = JSON.parse(readFileSync(new URL("../../vectors/cometbft/proof.json", import.meta.url), "utf8")) as {
  chain_id: string;
  validators: { address: string; pub_key: { value: string } }[];
  proof: TransactionProof;
};
const signed = vector.proof.signed_header!;
const validators = trustedValidatorsOf(vector);
const ed25519Key = (raw: Buffer) => createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]), format: "der", type: "spki" });

describe("CometBFT signed headers, from a real network", () => {
  it("hashes the header to the block id its commit signs", () => {
    assert.equal(toHex(headerHash(signed.header)).toUpperCase(), signed.commit.block_id.hash);
  });

  it("computes the bytes each validator signed: node:crypto verifies every precommit over them", () => {
    const byAddress = new Map(vector.validators.map((v) => [v.address, Buffer.from(v.pub_key.value, "base64")]));
    let checked = 0;
    for (const sig of signed.commit.signatures) {
      if (sig.block_id_flag !== 2 || sig.signature === null) continue;
      const key = byAddress.get(sig.validator_address)!;
      const message = precommitSignBytes(signed.header.chain_id, signed.commit, sig.timestamp);
      assert.ok(verify(null, message, ed25519Key(key), Buffer.from(sig.signature, "base64")), sig.validator_address);
      checked++;
    }
    assert.ok(checked * 3 > validators.length * 2, `${checked} signatures`);
  });

  it("verifies the proof against the genesis validators, and fails on any changed header field", () => {
    assert.ok(verifyTransactionProof(vector.proof, { validators, chainId: vector.chain_id }).ok);
    const header = signed.header as unknown as Record<string, unknown>;
    for (const field of Object.keys(header)) {
      const value = header[field];
      let changed: unknown;
      if (field === "version") changed = { ...(value as object), block: "12" };
      else if (field === "last_block_id") changed = { ...(value as RpcHeader["last_block_id"]), hash: "00".repeat(32) };
      else if (field === "time") changed = (value as string).replace(/\.(\d)/, (_, d: string) => `.${(Number(d) + 1) % 10}`);
      else if (field === "height") changed = String(Number(value) + 1);
      else if (field === "chain_id") changed = `${String(value)}x`;
      else changed = (value as string) === "" ? "AB" : `${(value as string).slice(0, -2)}${(value as string).endsWith("00") ? "01" : "00"}`;
      const altered = { ...header, [field]: changed } as unknown as RpcHeader;
      assert.notEqual(toHex(headerHash(altered)).toUpperCase(), signed.commit.block_id.hash, field);
      const proof = { ...vector.proof, signed_header: { ...signed, header: altered } };
      assert.equal(verifyTransactionProof(proof, { validators }).ok, false, field);
    }
    assert.equal(verifyTransactionProof(vector.proof, { validators, chainId: "another" }).ok, false);
  });

  it("refuses a signed header of another shape than CometBFT's, without throwing", () => {
    const shapes: unknown[] = [{}, { header: signed.header }, { header: signed.header, commit: { ...signed.commit, signatures: [{}] } }, { header: { ...signed.header, version: null }, commit: signed.commit }];
    for (const shape of shapes) {
      const verdict = verifyTransactionProof({ ...vector.proof, signed_header: shape as typeof signed }, { validators });
      assert.equal(verdict.ok, false, JSON.stringify(shape).slice(0, 80));
    }
  });

  it("does not count a signature twice, nor one of a validator outside the set", () => {
    const one = signed.commit.signatures.find((s) => s.block_id_flag === 2)!;
    const repeated = { ...signed, commit: { ...signed.commit, signatures: [one, one, one, one] } };
    const verdict = verifyTransactionProof({ ...vector.proof, signed_header: repeated }, { validators });
    assert.equal(verdict.ok, false);
    assert.match(verdict.ok ? "" : verdict.reason, /more than two thirds/);
  });
});
