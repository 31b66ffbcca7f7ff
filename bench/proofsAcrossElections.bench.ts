// Issue #39: a proof verified against the genesis across 10 validator elections (docs/proofs.md
// "Across validator changes"): the verifier follows the set through the 20 light blocks (the old
// set's last header and the new set's first, at each change) to the proof's header, as
// `ledgerd/verify` does in Node and, bundled, in a browser (headless Chromium). The headers are
// made here with real Ed25519 keys (test/helpers/syntheticChain.ts; ten elections on a real
// network take minutes), 4 validators a set, each change replacing one. Beside each figure, the
// same run's raw Ed25519 verify rate of the same library (@noble/ed25519, pure JavaScript) in
// the same place, and the signatures one verification checks (it stops at the power a step
// needs, as CometBFT does): the rest is hashing and parsing.
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { verify as ed25519Verify } from "@noble/ed25519";
import { precommitSignBytes } from "../src/proofs/cometHeader.js";
import { fromBase64 } from "../src/proofs/encoding.js";
import { trustRootOf, trustedValidatorsOf, verifyTransactionProof } from "../src/proofs/verify.js";
import { syntheticChain } from "../test/helpers/syntheticChain.js";
import { fmt, median, rate } from "./lib.js";

const elections = 10;
const validatorsPerSet = 4;
const rounds = 5;
const secondsPerRound = 1;
const chromiumPath = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

const chain = syntheticChain(elections, validatorsPerSet);
const headers = chain.lightBlocks.length + 1;
const signatures = headers * validatorsPerSet;
/** Signatures verified: the verifier stops at more than two thirds of a set of equal powers (lightBlock.ts). */
const verified = headers * (Math.floor((2 * validatorsPerSet) / 3) + 1);
/** One precommit to verify again and again: its message, signature and key. */
const first = chain.lightBlocks[0]!.signed_header;
const sample = {
  message: Array.from(precommitSignBytes(first.header.chain_id, first.commit, first.commit.signatures[0]!.timestamp)),
  signature: first.commit.signatures[0]!.signature!,
  key: Array.from(trustedValidatorsOf(chain.genesis).find((v) => v.publicKey.length === 32)!.publicKey),
};

/** The verification this measures; throws if it does not hold (a benchmark of a failure means nothing). */
function verifyOnce(): void {
  const verdict = verifyTransactionProof(chain.proof, { trust: { root: trustRootOf(chain.genesis), validatorChanges: chain.lightBlocks } });
  if (!verdict.ok || verdict.trusted?.changes !== elections) throw new Error(`the proof did not verify: ${JSON.stringify(verdict)}`);
}

function nodeFigures(): { msPerProof: number; rawPerSecond: number } {
  const key = Uint8Array.from(sample.key);
  const message = Uint8Array.from(sample.message);
  const signature = fromBase64(sample.signature);
  const proofs: number[] = [];
  const raws: number[] = [];
  for (let round = 0; round < rounds; round++) {
    proofs.push(1000 / rate(secondsPerRound, verifyOnce));
    raws.push(rate(secondsPerRound, () => void ed25519Verify(signature, message, key)));
  }
  return { msPerProof: median(proofs), rawPerSecond: median(raws) };
}

async function browserFigures(): Promise<{ msPerProof: number; rawPerSecond: number } | string> {
  const entry = `export * from "./src/proofs/verify.ts"; export { verify as ed25519Verify } from "@noble/ed25519"; export { fromBase64 } from "./src/proofs/encoding.ts";`;
  const bundle = await build({ stdin: { contents: entry, resolveDir: process.cwd(), loader: "ts" }, bundle: true, platform: "browser", format: "iife", globalName: "ledgerdVerify", write: false, logLevel: "silent" });
  const browser = await chromium.launch({ executablePath: chromiumPath }).catch((error: Error) => error);
  if (browser instanceof Error) return `no browser at ${chromiumPath} (${browser.message.split("\n")[0]})`;
  try {
    const page = await browser.newPage();
    // tsx names this file's functions with a helper (`__name`) that the page lacks.
    await page.addScriptTag({ content: `window.__name = (f) => f;\n${bundle.outputFiles[0]!.text}` });
    return await page.evaluate(
      ({ chain, sample, rounds, secondsPerRound, elections }) => {
        const lib = (globalThis as unknown as { ledgerdVerify: typeof import("../src/proofs/verify.js") & { ed25519Verify: typeof ed25519Verify; fromBase64: typeof fromBase64 } }).ledgerdVerify;
        const timed = (fn: () => void): number => {
          for (let i = 0; i < 3; i++) fn();
          let calls = 0;
          const start = performance.now();
          while (performance.now() - start < secondsPerRound * 1000) {
            fn();
            calls++;
          }
          return calls / ((performance.now() - start) / 1000);
        };
        const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
        const key = Uint8Array.from(sample.key);
        const message = Uint8Array.from(sample.message);
        const signature = lib.fromBase64(sample.signature);
        const proofs: number[] = [];
        const raws: number[] = [];
        for (let round = 0; round < rounds; round++) {
          proofs.push(1000 / timed(() => {
            const verdict = lib.verifyTransactionProof(chain.proof, { trust: { root: lib.trustRootOf(chain.genesis), validatorChanges: chain.lightBlocks } });
            if (!verdict.ok || verdict.trusted?.changes !== elections) throw new Error("the proof did not verify in the browser");
          }));
          raws.push(timed(() => void lib.ed25519Verify(signature, message, key)));
        }
        return { msPerProof: mid(proofs), rawPerSecond: mid(raws) };
      },
      { chain: { genesis: chain.genesis, lightBlocks: chain.lightBlocks, proof: chain.proof }, sample, rounds, secondsPerRound, elections },
    );
  } finally {
    await browser.close();
  }
}

function line(where: string, f: { msPerProof: number; rawPerSecond: number }): string {
  const rawMs = 1000 / f.rawPerSecond;
  return `${where}: ${f.msPerProof.toFixed(2)} ms per verification; raw @noble/ed25519 verify ${fmt(f.rawPerSecond)} /s (${rawMs.toFixed(3)} ms), so the ${verified} signatures verified are ${(verified * rawMs).toFixed(2)} ms of it`;
}

export async function run(): Promise<void> {
  console.log(`a proof across ${elections} elections: ${chain.lightBlocks.length} light blocks + the proof's header, ${validatorsPerSet} validators a set, ${signatures} precommit signatures of which ${verified} are verified; median of ${rounds} rounds of ${secondsPerRound} s`);
  console.log(line("Node", nodeFigures()));
  const inBrowser = await browserFigures();
  console.log(typeof inBrowser === "string" ? `browser: not measured, ${inBrowser}` : line(`browser (Chromium, ${chromiumPath})`, inBrowser));
}
