// The height and block hash a node joining by state sync starts to trust (docs/state-sync.md),
// read from the CometBFT RPC of a node the operator names: its latest block. The operator trusts
// that node for this one answer; everything after is checked by CometBFT's light client.

/** Longest wait for the RPC's answer. */
const trustReadTimeoutMs = 10_000;

export interface TrustPoint {
  readonly height: number;
  readonly hash: string;
}

/** The latest block's height and hash at `rpc` (`host:port` or a URL). */
export async function fetchTrustPoint(rpc: string): Promise<TrustPoint> {
  const url = `${rpc.includes("://") ? rpc : `http://${rpc}`}/block`;
  const response = await fetch(url, { signal: AbortSignal.timeout(trustReadTimeoutMs) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const body = (await response.json()) as { result?: { block_id?: { hash?: unknown }; block?: { header?: { height?: unknown } } } };
  const height = Number(body.result?.block?.header?.height);
  const hash = body.result?.block_id?.hash;
  if (!Number.isSafeInteger(height) || height < 1 || typeof hash !== "string") throw new Error(`${url} shows no block yet: nothing to trust`);
  return { height, hash };
}
