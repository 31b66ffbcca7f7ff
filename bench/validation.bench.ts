// Issue #2: stateless validations per second on one core (1-input CREATE and TRANSFER), the raw
// node:crypto Ed25519 verify rate from the same run over as many distinct signatures, and their
// ratio (goal: at least 0.8).
import { makeCreate } from "../src/transaction/builders/makeCreate.js";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import { makeTransfer } from "../src/transaction/builders/makeTransfer.js";
import { signTx } from "../src/transaction/builders/signTx.js";
import { prepareTxBytes } from "../src/transaction/prepareTxBytes.js";
import { fmt, median, rate, rawVerifier, rawVerifyRate } from "./lib.js";

const distinctTxs = 512;

function buildTexts(): { creates: Buffer[]; transfers: Buffer[] } {
  const creates: Buffer[] = [];
  const transfers: Buffer[] = [];
  for (let i = 0; i < distinctTxs; i++) {
    const alice = makeRandomKeypair();
    const bob = makeRandomKeypair();
    const create = signTx(
      makeCreate({
        issuers: [alice.publicKey],
        outputs: [{ publicKeys: [alice.publicKey], amount: 1n }],
        assetData: { serial: i, kind: "bench" },
        metadata: { note: "one input" },
      }),
      [alice],
    );
    const transfer = signTx(
      makeTransfer({ spends: [{ tx: create, outputIndex: 0 }], outputs: [{ publicKeys: [bob.publicKey], amount: 1n }], metadata: null }),
      [alice],
    );
    creates.push(Buffer.from(JSON.stringify(create)));
    transfers.push(Buffer.from(JSON.stringify(transfer)));
  }
  return { creates, transfers };
}

function validator(texts: readonly Buffer[]): () => void {
  let i = 0;
  return () => {
    const result = prepareTxBytes(texts[i++ % texts.length]!);
    if ("code" in result || !result.signaturesValid) throw new Error("bench tx rejected");
  };
}

// The three rates are taken in turns, short spells each, and the medians reported: this shared
// VM's speed drifts by several percent within a minute, which three long spells in a row would
// put into the ratio.
const rounds = 9;
const spellSeconds = 0.5;
const spellWarmMs = 50;

export async function run(): Promise<void> {
  const { creates, transfers } = buildTexts();
  const contenders = { verify: rawVerifier(distinctTxs), create: validator(creates), transfer: validator(transfers) };
  const rates = { verify: [] as number[], create: [] as number[], transfer: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (const name of ["verify", "create", "transfer"] as const) {
      rates[name].push(rate(spellSeconds, contenders[name], spellWarmMs));
    }
  }
  const verify = median(rates.verify);
  const create = median(rates.create);
  const transfer = median(rates.transfer);
  const repeated = rawVerifyRate(2, 1);
  console.log(`medians of ${rounds} rounds of ${spellSeconds} s spells, taken in turns:`);
  console.log(`raw Ed25519 verify (node:crypto, cached key), 1 core: ${fmt(verify)} /s (${distinctTxs} signatures)`);
  console.log(`stateless validation, 1-input CREATE, 1 core:        ${fmt(create)} /s  ratio ${(create / verify).toFixed(2)}`);
  console.log(`stateless validation, 1-input TRANSFER, 1 core:      ${fmt(transfer)} /s  ratio ${(transfer / verify).toFixed(2)}`);
  console.log(`raw verify of one signature again and again:         ${fmt(repeated)} /s (not the baseline: bench/lib.ts)`);
}
