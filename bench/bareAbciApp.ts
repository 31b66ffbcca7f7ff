// A bare ABCI application for `bench cometbft`'s second ceiling (issue #18): what CometBFT's
// 4-validator network commits when its application sits behind the same ABCI socket server as
// ledgerd's (src/engine/cometbft/abciServer.ts) and does nothing but, in `verify` mode, one
// Ed25519 verify per transaction on each validator; in `none` mode not even that.
//
// Run as its own process, one per validator, as ledgerd is:
//   node --import tsx bench/bareAbciApp.ts <host:port> <verify|none>
//
// A transaction in `verify` mode is `publicKey (32) | signature (64) | message`, the signature
// the message's (`bareSignedTxs`, each transaction's key its own). CheckTx verifies it the way
// ledgerd does (`verified`); FinalizeBlock verifies only those its CheckTx did not see, as ledgerd
// does with its cache of checked transactions. A recheck accepts. Info's
// `data` is `{"size": N}`, the transactions committed, as CometBFT's kvstore answers, so the
// bench's counter reads both the same way.
import { randomBytes, sign } from "node:crypto";
import {
  CheckTxType,
  ExecTxResult,
  ResponseCheckTx,
  ResponseProcessProposal_ProposalStatus,
  type Request,
  type Response,
} from "cosmjs-types/tendermint/abci/types";
import { privateKeyFromSeed } from "../src/crypto-conditions/privateKeyFromSeed.js";
import { publicKeyFromSeed } from "../src/crypto-conditions/publicKeyFromSeed.js";
import { verifyEd25519 } from "../src/crypto-conditions/verifyEd25519.js";
import { prepareProposal } from "../src/engine/cometbft/abciApp.js";
import { AbciServer } from "../src/engine/cometbft/abciServer.js";
import { cometBftEngineOptionsDefault as engineDefaults } from "../src/engine/cometbft/options.js";

export type BareMode = "verify" | "none";

const publicKeyBytes = 32;
const signatureBytes = 64;

/**
 * Whether `tx` carries a valid signature of its message by its key: ledgerd's own verify
 * (`verifyEd25519`: the key cache, the key object from JWK, node:crypto's verify), so the bare
 * app pays what a ledgerd validator pays for a signature. (A key object from DER instead costs
 * ~180 µs here, as much as the verify; JWK ~20.)
 */
function verified(tx: Uint8Array): boolean {
  if (tx.length < publicKeyBytes + signatureBytes) return false;
  const signature = tx.subarray(publicKeyBytes, publicKeyBytes + signatureBytes);
  return verifyEd25519(tx.subarray(0, publicKeyBytes), signature, tx.subarray(publicKeyBytes + signatureBytes));
}

/** `count` transactions of `bytes` bytes each, each signed by a key of its own (as signCreates). */
export function bareSignedTxs(count: number, bytes: number, tag: string): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const seed = randomBytes(32);
    const head = Buffer.from(`${tag}${i}:`);
    const message = Buffer.concat([head, randomBytes(Math.max(0, bytes - publicKeyBytes - signatureBytes - head.length))]);
    return Buffer.concat([publicKeyFromSeed(seed), sign(null, message, privateKeyFromSeed(seed)), message]);
  });
}

const accepted: Response = Object.freeze({ checkTx: Object.freeze(ResponseCheckTx.fromPartial({ code: 0 })) });
const refused: Response = Object.freeze({ checkTx: Object.freeze(ResponseCheckTx.fromPartial({ code: 1, log: "bad signature" })) });
const executedOk = Object.freeze(ExecTxResult.fromPartial({ code: 0 }));
const executedBad = Object.freeze(ExecTxResult.fromPartial({ code: 1 }));

class BareApp {
  private height = 0n;
  private committed = 0;
  /** Signatures (as latin1 strings) this node's CheckTx verified, until their block. */
  private readonly checked = new Set<string>();

  constructor(private readonly mode: BareMode) {}

  handle(request: Request): Promise<Response> {
    return Promise.resolve(this.answer(request));
  }

  private signatureKey(tx: Uint8Array): string {
    return Buffer.from(tx.buffer, tx.byteOffset + publicKeyBytes, signatureBytes).toString("latin1");
  }

  private answer(request: Request): Response {
    if (request.checkTx !== undefined) {
      if (this.mode === "none" || request.checkTx.type === CheckTxType.RECHECK) return accepted;
      const tx = request.checkTx.tx;
      if (!verified(tx)) return refused;
      this.checked.add(this.signatureKey(tx));
      return accepted;
    }
    if (request.finalizeBlock !== undefined) {
      const txResults = request.finalizeBlock.txs.map((tx) => {
        if (this.mode === "none") return executedOk;
        const key = this.signatureKey(tx);
        const ok = this.checked.delete(key) || verified(tx);
        return ok ? executedOk : executedBad;
      });
      this.committed += txResults.filter((result) => result === executedOk).length;
      this.height = request.finalizeBlock.height;
      return { finalizeBlock: { events: [], txResults, validatorUpdates: [], appHash: new Uint8Array(0) } };
    }
    if (request.commit !== undefined) return { commit: { retainHeight: 0n } };
    if (request.prepareProposal !== undefined) return { prepareProposal: prepareProposal(request.prepareProposal) };
    if (request.processProposal !== undefined) return { processProposal: { status: ResponseProcessProposal_ProposalStatus.ACCEPT } };
    if (request.info !== undefined) {
      const data = JSON.stringify({ size: this.committed });
      return { info: { data, version: "bare", appVersion: 0n, lastBlockHeight: this.height, lastBlockAppHash: new Uint8Array(0) } };
    }
    if (request.initChain !== undefined) return { initChain: { validators: [], appHash: new Uint8Array(0) } };
    if (request.echo !== undefined) return { echo: { message: request.echo.message } };
    if (request.listSnapshots !== undefined) return { listSnapshots: { snapshots: [] } };
    return { exception: { error: "not served by the bare app" } };
  }
}

async function main(): Promise<void> {
  const [address, mode] = process.argv.slice(2);
  const match = /^([^:]+):(\d+)$/.exec(address ?? "");
  if (match === null || (mode !== "verify" && mode !== "none")) throw new Error("usage: bareAbciApp.ts <host:port> <verify|none>");
  const app = new BareApp(mode);
  await AbciServer.start(
    {
      listen: { host: match[1]!, port: Number(match[2]) },
      messageBytesMax: engineDefaults.abciMessageBytesMax,
      requestsInFlightMax: engineDefaults.abciRequestsInFlightMax,
      writeBufferBytesMax: engineDefaults.abciWriteBufferBytesMax,
    },
    {
      handler: app,
      onFatal: (error) => {
        console.error(error);
        process.exit(1);
      },
    },
  );
  process.on("SIGTERM", () => process.exit(0));
  console.log("listening");
}

if (process.argv[1]?.endsWith("bareAbciApp.ts")) void main();
