// The chaos run's clients (issue 38): each keeps a chain of transfers, CREATE, then TRANSFERs
// each spending the last output, posted to a random node in a random mode; now and then a
// deliberate double spend (two different TRANSFERs of one output sent to two nodes at once),
// or a read of outputs or balances. Stream subscribers listen on several nodes and open a new
// socket when theirs closes. Every post, read and streamed transaction goes into the history.
// The choices come from the seed; which of them happen depends on the answers, and so on the
// processes' real timing: the same seed gives the same plan, not the same history.
import { setTimeout as sleep } from "node:timers/promises";
import { WebSocket } from "ws";
import type { JsonObject } from "../src/json/jsonValue.js";
import { streamPath } from "../src/events/options.js";
import { makeCreate } from "../src/transaction/builders/makeCreate.js";
import { makeKeypair, type Keypair } from "../src/transaction/builders/makeKeypair.js";
import { makeTransfer } from "../src/transaction/builders/makeTransfer.js";
import { signTx } from "../src/transaction/builders/signTx.js";
import type { TestnetNode } from "../src/testnet/manifest.js";
import type { PostMode } from "./history.js";
import { errorMessageOf, httpRequest } from "./http.js";
import { workloadLimits as limits } from "./options.js";
import type { Random } from "./random.js";
import type { Recorder } from "./recorder.js";

export interface WorkloadContext {
  readonly nodes: readonly TestnetNode[];
  readonly recorder: Recorder;
  readonly seed: number;
}

const modes: readonly PostMode[] = ["async", "sync", "commit"];

/** The last committed transaction of a client's chain, and the key its output 0 is locked to. */
interface ChainEnd {
  readonly tx: JsonObject;
  readonly owner: Keypair;
}

export class Client {
  private chain: ChainEnd | null = null;
  private readonly keys: Keypair[];
  private serial = 0;

  constructor(
    private readonly ctx: WorkloadContext,
    readonly id: number,
    private readonly rng: Random,
  ) {
    this.keys = Array.from({ length: limits.keysPerClient }, () => makeKeypair(rng.bytes(32)));
  }

  /** Steps until `signal` aborts; a step's request is always let finish. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.step();
      await sleep(this.rng.between(limits.thinkMsMin, limits.thinkMsMax));
    }
  }

  private async step(): Promise<void> {
    if (this.rng.chance(limits.readChance)) return this.read();
    const chain = this.chain;
    if (chain === null || this.rng.chance(limits.createChance)) return this.extend(this.create(), []);
    if (this.rng.chance(limits.doubleSpendChance)) return this.doubleSpend(chain);
    const to = this.rng.pick(this.keys);
    return this.extend({ tx: this.transfer(chain, to), owner: to }, [`${chain.tx["id"] as string}:0`]);
  }

  /** A CREATE posted in commit mode to `node`; its status (the recovery probe after a heal). */
  async probe(node: number): Promise<number | null> {
    const end = this.create();
    return this.post(end.tx, node, "commit", []);
  }

  private create(): ChainEnd {
    const owner = this.rng.pick(this.keys);
    const assetData = { chaos: this.ctx.seed, client: this.id, serial: this.serial++ };
    const outputs = [{ publicKeys: [owner.publicKey], amount: 1n }];
    const unsigned = makeCreate({ issuers: [owner.publicKey], outputs, assetData, metadata: null });
    return { tx: signTx(unsigned, [owner]), owner };
  }

  private transfer(from: ChainEnd, to: Keypair): JsonObject {
    const metadata = { client: this.id, serial: this.serial++ };
    const outputs = [{ publicKeys: [to.publicKey], amount: 1n }];
    const unsigned = makeTransfer({ spends: [{ tx: from.tx, outputIndex: 0 }], outputs, metadata });
    return signTx(unsigned, [from.owner]);
  }

  /**
   * Posts the chain's next transaction; the chain goes on from it once it is known committed
   * (a 202 in commit mode, else seen on a node in time), and starts again otherwise.
   */
  private async extend(next: ChainEnd, spends: readonly string[]): Promise<void> {
    const node = this.rng.int(this.ctx.nodes.length);
    const mode = this.rng.pick(modes);
    const status = await this.post(next.tx, node, mode, spends);
    this.chain = (await this.committed(next.tx, node, mode, status)) ? next : null;
  }

  /** Two TRANSFERs of the chain's output to two keys, posted to two nodes at once; a new chain follows. */
  private async doubleSpend(chain: ChainEnd): Promise<void> {
    const spends = [`${chain.tx["id"] as string}:0`];
    const first = this.rng.int(this.ctx.nodes.length);
    const second = (first + 1 + this.rng.int(this.ctx.nodes.length - 1)) % this.ctx.nodes.length;
    const mode = this.rng.pick(modes);
    const [a, b] = [this.rng.pick(this.keys), this.rng.pick(this.keys)];
    await Promise.all([this.post(this.transfer(chain, a), first, mode, spends), this.post(this.transfer(chain, b), second, mode, spends)]);
    this.chain = null;
  }

  private async read(): Promise<void> {
    const node = this.rng.int(this.ctx.nodes.length);
    const key = this.rng.pick(this.keys).publicKey;
    const path = this.rng.chance(0.5) ? `/api/v1/outputs?public_key=${key}&spent=false` : `/api/v1/balances?public_key=${key}`;
    const atMs = this.ctx.recorder.now();
    const answer = await httpRequest(`http://${this.ctx.nodes[node]!.http}${path}`, "GET", null, limits.requestMsMax);
    this.ctx.recorder.add({ type: "read", client: this.id, node, path, atMs, endMs: this.ctx.recorder.now(), status: answer.status });
  }

  private async post(tx: JsonObject, node: number, mode: PostMode, spends: readonly string[]): Promise<number | null> {
    const body = JSON.stringify(tx);
    const url = `http://${this.ctx.nodes[node]!.http}/api/v1/transactions?mode=${mode}`;
    const atMs = this.ctx.recorder.now();
    const answer = await httpRequest(url, "POST", body, mode === "commit" ? limits.commitRequestMsMax : limits.requestMsMax);
    const error = errorMessageOf(answer);
    const base = { type: "post", client: this.id, node, mode, txId: tx["id"] as string, body, spends, atMs } as const;
    this.ctx.recorder.add({ ...base, endMs: this.ctx.recorder.now(), status: answer.status, ...(error === undefined ? {} : { error }) });
    return answer.status;
  }

  /** A 202 in commit mode is a commit, a 4xx a refusal; else (accepted, 5xx, no answer) look. */
  private async committed(tx: JsonObject, node: number, mode: PostMode, status: number | null): Promise<boolean> {
    if (status === 202 && mode === "commit") return true;
    if (status !== null && status >= 400 && status < 500) return false;
    return this.awaitCommit(tx, node);
  }

  /** Whether `node` (else any node) serves the transaction within the limit. */
  private async awaitCommit(tx: JsonObject, node: number): Promise<boolean> {
    const deadline = Date.now() + limits.awaitCommitMsMax;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const target = this.ctx.nodes[(node + attempt) % this.ctx.nodes.length]!;
      const answer = await httpRequest(`http://${target.http}/api/v1/transactions/${tx["id"] as string}`, "GET", null, limits.requestMsMax);
      if (answer.status === 200) return true;
      await sleep(limits.pollMs);
    }
    return false;
  }
}

/**
 * Stream subscribers, one per node of `limits.subscriberNodes`, until `signal` aborts. A closed
 * socket is recorded and a new one opened: the stream has no replay, so what was committed
 * while it was closed is not sent to it.
 */
export async function runSubscribers(ctx: WorkloadContext, signal: AbortSignal): Promise<void> {
  await Promise.all(limits.subscriberNodes.map((node, subscriber) => subscribe(ctx, subscriber, node, signal)));
}

async function subscribe(ctx: WorkloadContext, subscriber: number, node: number, signal: AbortSignal): Promise<void> {
  const url = `ws://${ctx.nodes[node]!.ws}${streamPath}`;
  while (!signal.aborted) {
    await new Promise<void>((resolveClosed) => {
      const socket = new WebSocket(url);
      const abort = (): void => socket.terminate();
      signal.addEventListener("abort", abort, { once: true });
      let opened = false;
      socket.on("open", () => {
        opened = true;
        ctx.recorder.add({ type: "stream-connection", subscriber, node, state: "opened", atMs: ctx.recorder.now() });
      });
      socket.on("message", (data: Buffer) => {
        const event = JSON.parse(data.toString("utf8")) as { height: number; transaction_id: string };
        ctx.recorder.add({ type: "stream", subscriber, node, txId: event.transaction_id, height: event.height, atMs: ctx.recorder.now() });
      });
      socket.on("error", () => undefined);
      socket.on("close", () => {
        signal.removeEventListener("abort", abort);
        // A socket that never opened (the node is down) is no connection lost.
        if (opened) ctx.recorder.add({ type: "stream-connection", subscriber, node, state: "closed", atMs: ctx.recorder.now() });
        resolveClosed();
      });
    });
    if (!signal.aborted) await sleep(limits.reconnectMs);
  }
}
