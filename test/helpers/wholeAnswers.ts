// The Store's whole answers, for tests only: each is a batched reader (`stream*`) of the API's
// role read to the end. The node reads in batches; tests compare whole answers, through the
// same readers, so every backend's batches are what they check.
import type { Operation, OutputRef } from "../../src/transaction/committed.js";
import type { ApiReads, Batches, SearchHit } from "../../src/store/store.js";

export async function collect<T>(batches: Batches<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of batches) all.push(...batch);
  return all;
}

/** The whole answers of `store`, read through its batched readers. */
export function wholeOf(store: ApiReads) {
  return {
    getTransactionsByAsset: async (assetId: string, options: { operation?: Operation; lastOnly?: boolean } = {}): Promise<string[]> =>
      collect(store.streamTransactionsByAsset(assetId, options)),
    getOutputsByPublicKey: async (publicKey: string, spent?: boolean): Promise<OutputRef[]> =>
      collect(store.streamOutputsByPublicKey(publicKey, spent)),
    searchAssets: async (query: string, limit: number): Promise<SearchHit[]> =>
      collect(store.streamSearchAssets(query, limit)),
    searchMetadata: async (query: string, limit: number): Promise<SearchHit[]> =>
      collect(store.streamSearchMetadata(query, limit)),
    getBlockTransactions: async (height: number): Promise<string[] | null> => {
      const batches = await store.streamBlockTransactions(height);
      return batches === null ? null : collect(batches);
    },
  };
}
