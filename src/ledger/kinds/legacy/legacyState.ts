// The views `validateLegacy` checks legacy transactions (variants A and B, docs/compatibility.md
// #13-#16) against, over the legacy namespace: legacy ids (Keccak-256), outputs keyed
// `<txid>:<cid>`, one spent index for both variants, and the federation (docs/legacy-variants.md
// §7.2: the validator set's keys, base58).
import { Buffer } from "node:buffer";
import { encodeBase58 } from "../../../crypto-conditions/encodeBase58.js";
import type { LegacyOutputRef, LegacyView, LegacyViewOutput, PreparedLegacyTx } from "../../../legacy/types.js";
import { BlockSpends } from "../../blockSpends.js";
import type { PendingTxs } from "../../txKind.js";
import { type StoredLegacyOutput, type Validator } from "../../../store/store.js";
import { legacyOutputKey, type CommittedLegacyTx } from "../../../legacy/committed.js";

/** What legacy validation reads from committed state, in one batch per block or check. */
export interface LegacyCommittedState {
  readonly ids: ReadonlySet<string>;
  /** By `legacyOutputKey`. */
  readonly outputs: ReadonlyMap<string, StoredLegacyOutput>;
  /** The base58 keys of the validator set in force: who may sign a legacy CREATE. */
  readonly federation: ReadonlySet<string>;
}

/** The validators' keys (hex in the store) as the base58 keys legacy transactions carry. */
export function federationOf(validators: readonly Validator[]): Set<string> {
  return new Set(validators.map((v) => encodeBase58(Buffer.from(v.publicKey, "hex"))));
}

/** The outputs a set of legacy transactions spends, for one batched read. */
export function legacySpendsOf(txs: readonly PreparedLegacyTx[]): LegacyOutputRef[] {
  return txs.flatMap((tx) => tx.spends);
}

/**
 * Committed state plus the pending legacy transactions (checkTx): their spends count as spent,
 * their outputs can be spent (a chained spend is checked again when its block executes). `self`
 * (a recheck) makes no outputs for itself.
 */
export function legacyPendingView(
  committed: LegacyCommittedState,
  pending: PendingTxs<PreparedLegacyTx>,
  self: PreparedLegacyTx | null,
): LegacyView {
  return {
    hasTransaction: (txid) => committed.ids.has(txid) || pending.has(txid),
    getOutput: (ref) => {
      const key = legacyOutputKey(ref);
      const stored = committed.outputs.get(key);
      if (stored !== undefined) {
        return { conditionUri: stored.conditionUri, spent: stored.spentBy !== null || pending.isSpent(key) };
      }
      const maker = ref.txid === self?.id ? undefined : pending.get(ref.txid);
      // `cid` is the output's index (classifyLegacy checks it).
      const output = maker?.outputs[ref.cid];
      if (output === undefined) return undefined;
      return { conditionUri: output.conditionUri, spent: pending.isSpent(key) };
    },
    isFederationKey: (publicKey) => committed.federation.has(publicKey),
  };
}

/** Committed legacy state plus the valid legacy transactions applied so far in the block. */
export class LegacyBlockOverlay implements LegacyView {
  private readonly block: BlockSpends<LegacyViewOutput>;

  constructor(private readonly committed: LegacyCommittedState) {
    this.block = new BlockSpends(committed.ids);
  }

  hasTransaction(txid: string): boolean {
    return this.block.hasTransaction(txid);
  }

  getOutput(ref: LegacyOutputRef): LegacyViewOutput | undefined {
    const key = legacyOutputKey(ref);
    const stored = this.committed.outputs.get(key);
    if (stored === undefined) return this.block.output(key, undefined);
    return this.block.output(key, { conditionUri: stored.conditionUri, spent: stored.spentBy !== null });
  }

  isFederationKey(publicKey: string): boolean {
    return this.committed.federation.has(publicKey);
  }

  apply(tx: PreparedLegacyTx): void {
    this.block.addTransaction(tx.id);
    for (const ref of tx.spends) this.block.addSpend(legacyOutputKey(ref));
    for (const output of tx.outputs) {
      const key = legacyOutputKey({ txid: tx.id, cid: output.cid });
      this.block.addOutput(key, { conditionUri: output.conditionUri, spent: false });
    }
  }
}

/** A valid legacy transaction as the store takes it; `position` among the block's valid ones. */
export function toCommittedLegacyTx(tx: PreparedLegacyTx, position: number): CommittedLegacyTx {
  return {
    id: tx.id,
    variant: tx.variant,
    operation: tx.operation,
    json: tx.json,
    position,
    outputs: tx.outputs,
    spends: tx.spends,
  };
}
