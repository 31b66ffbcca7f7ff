// Ed25519 verification throughput on one core: raw node:crypto with and without a cached
// KeyObject, and the crypto-conditions path a transaction input takes. Plain text lines.
import { Buffer } from "node:buffer";
import { createPublicKey, verify } from "node:crypto";
import { performance } from "node:perf_hooks";
import { conditionUriOfFulfillment } from "../src/crypto-conditions/conditionUriOfFulfillment.js";
import { decodeFulfillment } from "../src/crypto-conditions/decodeFulfillment.js";
import { encodeFulfillment } from "../src/crypto-conditions/encodeFulfillment.js";
import { signEd25519Fulfillment } from "../src/crypto-conditions/signEd25519Fulfillment.js";
import { verifyFulfillment } from "../src/crypto-conditions/verifyFulfillment.js";
import { ofVerifyRate } from "./lib.js";

const durationMs = 2_000;
const batch = 64;

/** Calls `step` in batches for about `durationMs` and prints the rate. */
function measure(label: string, step: () => boolean): void {
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < durationMs) {
    for (let i = 0; i < batch; i++) {
      if (!step()) throw new Error(`${label}: verification failed`);
    }
    count += batch;
    elapsed = performance.now() - start;
  }
  const perSecond = Math.round((count * 1000) / elapsed);
  console.log(`${label}: ${perSecond.toLocaleString("en-US")} /s ${ofVerifyRate(perSecond)} (${count} in ${Math.round(elapsed)} ms)`);
}

export async function run(): Promise<void> {
  const seed = Buffer.alloc(32, 7);
  const message = Buffer.alloc(32, 1); // BigchainDB signs a 32-byte sha3-256 digest
  const fulfillment = signEd25519Fulfillment(seed, message);
  const publicKey = Buffer.from(fulfillment.publicKey.bytes);
  const signature = Buffer.from(fulfillment.signature);
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), publicKey]);
  const jwk = { kty: "OKP", crv: "Ed25519", x: publicKey.toString("base64url") };
  const keyObject = createPublicKey({ key: spki, format: "der", type: "spki" });
  const text = encodeFulfillment(fulfillment);
  const decoded = decodeFulfillment(text);

  console.log(`crypto-conditions bench: Ed25519 verifies on one core, ~${durationMs / 1000} s each`);
  measure("node:crypto verify, cached KeyObject", () => verify(null, message, keyObject, signature));
  measure("node:crypto verify, SPKI DER KeyObject per call", () =>
    verify(null, message, createPublicKey({ key: spki, format: "der", type: "spki" }), signature),
  );
  measure("node:crypto verify, JWK KeyObject per call", () =>
    verify(null, message, createPublicKey({ key: jwk, format: "jwk" }), signature),
  );
  measure("verifyFulfillment, decoded ed25519 fulfillment", () => verifyFulfillment(decoded, message));
  measure("decodeFulfillment + conditionUriOfFulfillment + verifyFulfillment", () => {
    const f = decodeFulfillment(text);
    return conditionUriOfFulfillment(f).length > 0 && verifyFulfillment(f, message);
  });
}
