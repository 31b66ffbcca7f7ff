// The node the explorer reads, and how it reads it: only the public HTTP API (docs/http-api.md),
// so the page works against any ledgerd or BigchainDB node. Every request answers a value, never
// throws: a feature the node lacks is a `{ ok: false }` the page hides or falls back from.
import { requestTimeoutMs } from "./limits.js";

export type Answer<T> =
  | { readonly ok: true; readonly value: T; readonly next: string | null }
  /** `status` 0: no answer (network, timeout, not JSON). */
  | { readonly ok: false; readonly status: number; readonly message: string };

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

/** The `rel="next"` target of an RFC 8288 `Link` header, absolute; null without one. */
export function nextLinkOf(header: string | null, base: string): string | null {
  if (header === null) return null;
  for (const part of header.split(",")) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/i.exec(part);
    if (match?.[1] !== undefined) return new URL(match[1], base).href;
  }
  return null;
}

function failure(status: number, message: string): Answer<never> {
  return { ok: false, status, message };
}

/** The message of a JSON error body (`{"message", "status"}`), or the status text. */
async function errorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === "string") return body.message;
  } catch {
    // Not JSON: the status line says enough.
  }
  return `${response.status} ${response.statusText}`.trim();
}

export class Api {
  /** e.g. `http://127.0.0.1:9984`, no trailing slash. */
  readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  /** GET `/api/v1` + `path` (path starts with `/`). */
  get<T>(path: string): Promise<Answer<T>> {
    return this.getUrl<T>(`${this.base}/api/v1${path}`);
  }

  /** GET an absolute URL (a `Link: rel="next"` target). */
  async getUrl<T>(url: string): Promise<Answer<T>> {
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(requestTimeoutMs), headers: { accept: "application/json" } });
    } catch (error) {
      return failure(0, error instanceof Error ? error.message : String(error));
    }
    if (!response.ok) return failure(response.status, await errorMessage(response));
    try {
      const value = (await response.json()) as T;
      return { ok: true, value, next: nextLinkOf(response.headers.get("link"), url) };
    } catch {
      return failure(0, "the answer is not JSON");
    }
  }
}

/** `?a=1&b=x` from the given parameters, each encoded. */
export function query(params: Record<string, string | number | boolean>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) search.set(key, String(value));
  return `?${search.toString()}`;
}
