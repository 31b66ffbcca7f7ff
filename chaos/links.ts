// The links between a chaos testnet's CometBFT peers, through Toxiproxy (.cache/bin/toxiproxy-
// server, scripts/install-toxiproxy.sh). Node i dials node j at a proxy of its own, "n<i>-n<j>",
// whose upstream is j's P2P address; with PEX off, no peer learns another's real address, so
// every peer connection runs through a proxy (the P2P handshake authenticates node ids, not
// addresses). Cutting or slowing a link is a call to Toxiproxy's HTTP API; `heal` resets all.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { packageRoot } from "../src/engine/cometbft/cometBftSupervisor.js";
import { httpRequest } from "./http.js";
import { nemesisLimits } from "./options.js";

const apiMs = 2_000;
const readyMs = 10_000;

/** The toxiproxy-server binary this package installs; fails with how to get it. */
export function toxiproxyBinary(): string {
  const binary = join(packageRoot(), ".cache", "bin", "toxiproxy-server");
  if (!existsSync(binary)) throw new Error(`Toxiproxy is missing (looked for ${binary}): run scripts/install-toxiproxy.sh first`);
  return binary;
}

/** One direction of dialing: node `from` reaches node `to` at `listen`. */
export interface LinkProxy {
  readonly from: number;
  readonly to: number;
  readonly listen: string;
  readonly upstream: string;
}

export const proxyName = (from: number, to: number): string => `n${from}-n${to}`;

export class Links {
  private child: ChildProcess | null = null;
  /** Times a heal found Toxiproxy's API stuck and started the server again. */
  restarts = 0;

  private constructor(
    private readonly api: string,
    private readonly links: LinkProxy[],
    private readonly logPath: string,
  ) {}

  get proxies(): readonly LinkProxy[] {
    return this.links;
  }

  /** Starts toxiproxy-server on `api` (host:port), logging to `logPath`, and makes the proxies. */
  static async start(api: string, proxies: readonly LinkProxy[], logPath: string): Promise<Links> {
    const links = new Links(api, [...proxies], logPath);
    await links.launch();
    return links;
  }

  private async launch(): Promise<void> {
    const [host, port] = this.api.split(":") as [string, string];
    const log = openSync(this.logPath, "a");
    this.child = spawn(toxiproxyBinary(), ["-host", host, "-port", port], { stdio: ["ignore", log, log] });
    closeSync(log);
    await this.waitReady(this.child);
    for (const proxy of this.links) await this.create(proxy);
  }

  /** More proxies (a node that joins the run), kept through a restart of the server. */
  async add(proxies: readonly LinkProxy[]): Promise<void> {
    for (const proxy of proxies) {
      await this.create(proxy);
      this.links.push(proxy);
    }
  }

  private async create(proxy: LinkProxy): Promise<void> {
    const name = proxyName(proxy.from, proxy.to);
    await this.call("POST", "/proxies", { name, listen: proxy.listen, upstream: proxy.upstream, enabled: true });
  }

  /** No traffic either way between each node of `a` and each node of `b`. */
  async cut(a: readonly number[], b: readonly number[]): Promise<void> {
    for (const proxy of this.between(a, b)) await this.call("POST", `/proxies/${proxyName(proxy.from, proxy.to)}`, { enabled: false });
  }

  /**
   * What `from` sends never reaches `to`, while `to`'s messages still reach `from`: data is
   * dropped (Toxiproxy's timeout toxic with 0, which holds the connection open) in one direction
   * on whichever of the two proxies carries their connection.
   */
  async cutOneWay(from: number, to: number): Promise<void> {
    await this.toxic(from, to, "upstream", "oneway", { type: "timeout", attributes: { timeout: 0 } });
    await this.toxic(to, from, "downstream", "oneway", { type: "timeout", attributes: { timeout: 0 } });
  }

  /** Every link of `node` slowed, both ways. */
  async slow(node: number): Promise<void> {
    const attributes = { latency: nemesisLimits.slowLatencyMs, jitter: nemesisLimits.slowJitterMs };
    await this.onEveryLinkOf(node, "slow", { type: "latency", attributes });
  }

  /** Every link of `node` capped in bandwidth, and half its connections reset after a while. */
  async lossy(node: number): Promise<void> {
    await this.onEveryLinkOf(node, "rate", { type: "bandwidth", attributes: { rate: nemesisLimits.lossyRateKBps } });
    const reset = { type: "reset_peer", toxicity: nemesisLimits.lossyToxicity, attributes: { timeout: nemesisLimits.lossyResetMs } };
    await this.onEveryLinkOf(node, "reset", reset);
  }

  /**
   * Every proxy enabled again and every toxic removed. Removing a toxic from a link under
   * traffic can leave Toxiproxy's API without an answer (Shopify/toxiproxy issues 412 and 558,
   * open): then the server is started again with clean proxies, which drops every peer
   * connection once (CometBFT dials its persistent peers again).
   */
  async heal(): Promise<void> {
    try {
      await this.call("POST", "/reset", null);
    } catch {
      this.restarts++;
      await this.stop("SIGKILL");
      await this.launch();
    }
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
    child.kill(signal);
    await exited;
  }

  private between(a: readonly number[], b: readonly number[]): LinkProxy[] {
    return this.proxies.filter((p) => (a.includes(p.from) && b.includes(p.to)) || (b.includes(p.from) && a.includes(p.to)));
  }

  private async onEveryLinkOf(node: number, label: string, toxic: Record<string, unknown>): Promise<void> {
    for (const proxy of this.proxies.filter((p) => p.from === node || p.to === node)) {
      for (const stream of ["upstream", "downstream"] as const) await this.toxic(proxy.from, proxy.to, stream, label, toxic);
    }
  }

  private async toxic(
    from: number, to: number, stream: "upstream" | "downstream", label: string, toxic: Record<string, unknown>,
  ): Promise<void> {
    const name = proxyName(from, to);
    await this.call("POST", `/proxies/${name}/toxics`, { name: `${label}-${stream}`, stream, toxicity: 1, ...toxic });
  }

  private async call(method: "GET" | "POST", path: string, body: unknown): Promise<string> {
    const answer = await httpRequest(`http://${this.api}${path}`, method, body === null ? "" : JSON.stringify(body), apiMs);
    if (answer.status === null || answer.status >= 300) {
      throw new Error(`toxiproxy ${method} ${path}: ${answer.status ?? answer.error} ${answer.text}`);
    }
    return answer.text;
  }

  private async waitReady(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + readyMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`toxiproxy-server exited (${child.exitCode})`);
      if ((await httpRequest(`http://${this.api}/version`, "GET", null, apiMs)).status === 200) return;
      await sleep(100);
    }
    throw new Error(`toxiproxy-server did not answer on ${this.api} within ${readyMs} ms`);
  }
}
