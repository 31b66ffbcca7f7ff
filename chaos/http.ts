// The chaos clients' HTTP: one fresh connection per request (no kept-alive socket that a killed
// or paused node leaves half-open under the next request), a deadline per request, and every
// outcome as data: a status and body, or null and the error when no answer came.
import { request } from "node:http";

export interface Answer {
  readonly status: number | null;
  readonly text: string;
  readonly error?: string;
}

export function httpRequest(url: string, method: "GET" | "POST", body: string | null, timeoutMs: number): Promise<Answer> {
  return new Promise((resolveAnswer) => {
    const headers = body === null ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
    const req = request(url, { method, headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolveAnswer({ status: res.statusCode ?? null, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (error) => resolveAnswer({ status: null, text: "", error: error.message }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (error) => resolveAnswer({ status: null, text: "", error: error.message }));
    req.end(body ?? undefined);
  });
}

/** The `message` of a JSON error answer, else the text's start. */
export function errorMessageOf(answer: Answer): string | undefined {
  if (answer.status === null) return answer.error;
  if (answer.status < 400) return undefined;
  try {
    const parsed = JSON.parse(answer.text) as { message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // Not JSON: keep the text.
  }
  return answer.text.slice(0, 200);
}

/** CometBFT RPC GET `path` (`block?height=3`, `abci_info`): its `result`. */
export async function rpcResult(rpcAddress: string, path: string, timeoutMs: number): Promise<unknown> {
  const answer = await httpRequest(`http://${rpcAddress}/${path}`, "GET", null, timeoutMs);
  if (answer.status !== 200) throw new Error(`${rpcAddress}/${path}: ${answer.status ?? answer.error}`);
  const parsed = JSON.parse(answer.text) as { result?: unknown; error?: unknown };
  if (parsed.error !== undefined) throw new Error(`${path}: ${JSON.stringify(parsed.error)}`);
  return parsed.result;
}

/** CometBFT's latest block height, or null if it does not answer. */
export async function latestHeight(rpcAddress: string, timeoutMs: number): Promise<number | null> {
  const answer = rpcResult(rpcAddress, "status", timeoutMs);
  const status = (await answer.catch(() => null)) as StatusResult | null;
  const height = status?.sync_info?.latest_block_height;
  return height === undefined ? null : Number(height);
}

interface StatusResult {
  readonly sync_info?: { readonly latest_block_height?: string };
}
