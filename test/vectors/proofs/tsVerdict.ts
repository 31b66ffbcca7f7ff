// The TypeScript side of the shared verifier vectors (verifier-vectors.json): each case through
// ledgerd's own code, as a user of `ledgerd/verify` and `ledgerd/client` meets it. The generator
// records these verdicts as the expected ones; pythonVerifier.test.ts holds both verifiers to them.
import { CheckpointRefused, LedgerdClient, ProofRefused, type FetchLike } from "../../../src/client/client.js";
import { cosignatureType, verifyCosignature } from "../../../src/proofs/cosignature.js";
import { parseVerifierKey, splitNote, type NoteKey } from "../../../src/proofs/signedNote.js";
import { trustedValidatorsOf, trustRootOf, verifyConsistencyProof, verifyTransactionProof, type LightBlock, type VerifyOptions } from "../../../src/proofs/verify.js";

/** `verify: { trust }`: a genesis and the light blocks at the set's changes (validator-changes' `light_blocks`). */
export interface VectorTrust {
  readonly genesis: unknown;
  readonly light_blocks: unknown;
  readonly trust_period_ms?: number;
  readonly now_ms?: number;
}

/** What a proof is checked against: nothing (its own app hash), validators, or a root of trust. */
interface Against {
  readonly validators?: unknown;
  readonly chain_id?: string;
  readonly trust?: VectorTrust;
}

/** One vector: what is verified, and the verdict both verifiers must give. */
export type VectorCase = {
  readonly name: string;
  /** The check of the TypeScript verifier this case provokes ("valid" for an accepted one). */
  readonly check: string;
  readonly expect: { readonly ok: boolean; readonly reason: string };
} & (
  | ({ readonly kind: "transaction_proof"; readonly proof: unknown; readonly id?: string } & Against)
  | ({ readonly kind: "consistency_proof"; readonly proof: unknown } & Against)
  | ({ readonly kind: "transaction"; readonly transaction: unknown; readonly proof: unknown; readonly id: string } & Against)
  | { readonly kind: "checkpoint"; readonly note: string; readonly height: string | null; readonly key: string; readonly witnesses?: readonly string[]; readonly quorum?: number }
);

export type Verdict = { readonly ok: boolean; readonly reason: string };

function optionsOf(c: Against): VerifyOptions {
  const trust = c.trust;
  return {
    ...(c.validators === undefined ? {} : { validators: trustedValidatorsOf(c.validators) }),
    ...(c.chain_id === undefined ? {} : { chainId: c.chain_id }),
    ...(trust === undefined ? {} : {
      trust: {
        root: trustRootOf(trust.genesis),
        validatorChanges: trust.light_blocks as LightBlock[],
        ...(trust.trust_period_ms === undefined ? {} : { trustPeriodMs: trust.trust_period_ms }),
        ...(trust.now_ms === undefined ? {} : { nowMs: trust.now_ms }),
      },
    }),
  };
}

/** A node that answers with the case's documents only: the client's own code reads them. */
function answering(documents: Record<string, { body: string; headers?: Record<string, string> }>): FetchLike {
  return async (url) => {
    const path = new URL(url).pathname;
    const found = Object.entries(documents).find(([prefix]) => path.startsWith(prefix))?.[1];
    if (found === undefined) throw new Error(`the vector has no answer for ${url}`);
    const headers = new Map(Object.entries(found.headers ?? {}));
    return { status: 200, ok: true, headers: { get: (name: string) => headers.get(name.toLowerCase()) ?? null }, text: async () => found.body };
  };
}

/** The witnesses whose cosignature of the note verifies, counted as `ledgerd audit` counts them. */
function cosigners(note: string, witnesses: readonly NoteKey[]): number {
  const split = splitNote(note);
  if (split === null) return 0;
  return witnesses.filter((w) => split.signatures.some((s) => s.name === w.name && verifyCosignature(w, split.body, s.signature))).length;
}

async function checkpointVerdict(c: Extract<VectorCase, { kind: "checkpoint" }>): Promise<Verdict> {
  const client = new LedgerdClient("http://node.invalid", {
    fetch: answering({ "/api/v1/checkpoint": { body: c.note, ...(c.height === null ? {} : { headers: { "ledgerd-checkpoint-height": c.height } }) } }),
  });
  try {
    const kept = await client.verifiedCheckpoint(c.key);
    const witnesses = (c.witnesses ?? []).map((vkey) => parseVerifierKey(vkey, cosignatureType)!);
    const quorum = c.quorum ?? witnesses.length;
    const cosigned = cosigners(c.note, witnesses);
    if (cosigned < quorum) return { ok: false, reason: `${cosigned} of the ${witnesses.length} witnesses cosigned the checkpoint of size ${kept.size}; the quorum is ${quorum}` };
    return { ok: true, reason: "" };
  } catch (error) {
    if (error instanceof CheckpointRefused) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** getTransaction(id, { verify }) of ledgerd/client over the case's answers (it checks the body's hash too). */
async function transactionVerdict(c: Extract<VectorCase, { kind: "transaction" }>): Promise<Verdict> {
  const client = new LedgerdClient("http://node.invalid", {
    fetch: answering({ "/api/v1/transactions/": { body: JSON.stringify(c.transaction) }, "/api/v1/proofs/transactions/": { body: JSON.stringify(c.proof) } }),
  });
  try {
    await client.getTransaction(c.id, { verify: optionsOf(c) });
    return { ok: true, reason: "" };
  } catch (error) {
    if (error instanceof ProofRefused) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** The TypeScript verifier's verdict on one case. */
export async function tsVerdict(c: VectorCase): Promise<Verdict> {
  const of = (v: { ok: true } | { ok: false; reason: string }): Verdict => (v.ok ? { ok: true, reason: "" } : { ok: false, reason: v.reason });
  switch (c.kind) {
    case "transaction_proof":
      return of(verifyTransactionProof(c.proof as never, optionsOf(c), c.id));
    case "consistency_proof":
      return of(verifyConsistencyProof(c.proof as never, optionsOf(c)));
    case "transaction":
      return transactionVerdict(c);
    case "checkpoint":
      return checkpointVerdict(c);
  }
}
