// The node the explorer reads, and how: through ledgerd/client (docs/client.md), the public HTTP
// API only, so the page works against any ledgerd or BigchainDB node. Every call answers a value,
// never throws: a feature the node lacks is a `{ ok: false }` the page hides or falls back from.
import { LedgerdClient, LedgerdError } from "../../src/client/client.js";
import { failureOf, timedFetch, type Answer } from "./pager.js";

export type { Answer } from "./pager.js";

/**
 * The node's base URL: `?node=http://host:port` in the page's URL, else the page's own origin
 * (the node serves the explorer at `/explorer/`). Anything but an http(s) URL is ignored.
 */
export function nodeBaseOf(location: Location): string {
  const asked = new URLSearchParams(location.search).get("node");
  if (asked !== null) {
    try {
      const url = new URL(asked);
      if (url.protocol === "http:" || url.protocol === "https:") return url.href.replace(/\/+$/, "");
    } catch {
      // Not a URL: the page's own origin, below.
    }
  }
  return location.origin;
}

export class Api {
  /** e.g. `http://127.0.0.1:9984`, no trailing slash. */
  readonly base: string;
  readonly client: LedgerdClient;

  constructor(base: string) {
    this.base = base;
    this.client = new LedgerdClient(base, { fetch: timedFetch });
  }

  /**
   * What `call` gets from the client, or why not. The value is typed as the client types it,
   * but the node may be another implementation: the pages check its shape (wire.ts).
   */
  async ask<T>(call: (client: LedgerdClient) => Promise<T>): Promise<Answer<T>> {
    try {
      return { ok: true, value: await call(this.client) };
    } catch (error) {
      return failureOf(error);
    }
  }

  /**
   * `GET /api/v1/`, where the node says its event streams are (a BigchainDB node names its own
   * place): the one answer the client leaves out, since it knows its routes.
   */
  index(): Promise<Answer<unknown>> {
    return this.ask(async () => {
      const response = await timedFetch(`${this.base}/api/v1/`);
      if (!response.ok) throw new LedgerdError(`the node answered ${response.status} for its API index`, response.status, "");
      return JSON.parse(await response.text()) as unknown;
    });
  }
}
