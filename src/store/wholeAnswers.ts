// The Store's whole answers, the same for every backend: each is its batched reader (`stream*`)
// read to the end. A backend extends this class and writes only the batched readers.
import type { Operation, OutputRef } from "../transaction/committed.js";
import type { Batches, SearchHit } from "./store.js";

export async function collect<T>(batches: Batches<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of batches) all.push(...batch);
  return all;
}

export abstract class WholeAnswers {
  abstract streamTransactionsByAsset(assetId: string, options?: { operation?: Operation; lastOnly?: boolean }): Batches<string>;
  abstract streamOutputsByPublicKey(publicKey: string, spent?: boolean): Batches<OutputRef>;
  abstract streamSearchAssets(query: string, limit: number | undefined): Batches<SearchHit>;
  abstract streamSearchMetadata(query: string, limit: number | undefined): Batches<SearchHit>;
  abstract streamBlockTransactions(height: number): Promise<Batches<string> | null>;

  async getTransactionsByAsset(assetId: string, options: { operation?: Operation; lastOnly?: boolean } = {}): Promise<string[]> {
    return collect(this.streamTransactionsByAsset(assetId, options));
  }

  async getOutputsByPublicKey(publicKey: string, spent?: boolean): Promise<OutputRef[]> {
    return collect(this.streamOutputsByPublicKey(publicKey, spent));
  }

  async searchAssets(query: string, limit: number): Promise<SearchHit[]> {
    return collect(this.streamSearchAssets(query, limit));
  }

  async searchMetadata(query: string, limit: number): Promise<SearchHit[]> {
    return collect(this.streamSearchMetadata(query, limit));
  }

  async getBlockTransactions(height: number): Promise<string[] | null> {
    const batches = await this.streamBlockTransactions(height);
    return batches === null ? null : collect(batches);
  }
}
