// Signed transactions for tests and benchmarks, made with ledgerd's own builders.
import { makeCreate } from "../../src/transaction/builders/makeCreate.js";
import { makeKeypair, type Keypair } from "../../src/transaction/builders/makeKeypair.js";
import { makeTransfer } from "../../src/transaction/builders/makeTransfer.js";
import { signTx } from "../../src/transaction/builders/signTx.js";
import type { JsonObject } from "../../src/json/jsonValue.js";

let counter = 0;

/** A deterministic keypair per name (seed = sha-like fill of the name's bytes). */
export function keypairOf(name: string): Keypair {
  const seed = Buffer.alloc(32);
  Buffer.from(name, "utf8").copy(seed);
  seed[31] = name.length;
  return makeKeypair(seed);
}

export function create(owner: Keypair, amount = 1n, data: JsonObject | null = null): JsonObject {
  return signTx(
    makeCreate({
      issuers: [owner.publicKey],
      outputs: [{ publicKeys: [owner.publicKey], amount }],
      assetData: data ?? { serial: counter++ },
      metadata: null,
    }),
    [owner],
  );
}

export function transfer(
  spends: readonly { tx: JsonObject; outputIndex: number }[],
  signers: readonly Keypair[],
  outputs: readonly { publicKeys: readonly string[]; amount: bigint }[],
  metadata: JsonObject | null = null,
): JsonObject {
  return signTx(makeTransfer({ spends, outputs, metadata }), signers);
}

export function bytesOf(tx: JsonObject): Uint8Array {
  return Buffer.from(JSON.stringify(tx), "utf8");
}
