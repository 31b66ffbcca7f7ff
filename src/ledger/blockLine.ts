// A committed block as one line of JSON: what `ledgerd export` writes per block and what a
// state-sync snapshot's chunks hold (docs/state-sync.md). Each transaction is its stored text as
// a JSON string, so its bytes survive; evidence (outside the app hash) is copied as it was.
import type { BlockContents, EvidenceType } from "../store/store.js";
import type { Misbehavior } from "./ledgerApp.js";

export interface BlockLine {
  readonly height: number;
  readonly app_hash: string;
  readonly txs: readonly string[];
  /** The evidence of misbehavior the block carried, in its order; absent when none. */
  readonly evidence?: readonly EvidenceLine[];
}

/** One evidence of a block (store.ts Evidence, without the block's height and its place). */
export interface EvidenceLine {
  readonly type: EvidenceType;
  readonly validator_address: string;
  readonly power: number;
  readonly infraction_height: number;
  readonly time: string;
  readonly total_power: number;
}

/** A stored block as a line: its evidence only when it carried some (older lines have none). */
export function blockLineOf(contents: BlockContents): BlockLine {
  const block = { height: contents.height, app_hash: contents.appHash, txs: contents.txs.map((tx) => tx.json) };
  if (contents.evidence.length === 0) return block;
  const evidence = contents.evidence.map((e) => ({
    type: e.type,
    validator_address: e.validatorAddress,
    power: e.power,
    infraction_height: e.infractionHeight,
    time: e.time,
    total_power: e.totalPower,
  }));
  return { ...block, evidence };
}

/** A line's evidence as the engine reports misbehavior to FinalizeBlock. */
export function misbehaviorOfLine(block: BlockLine): Misbehavior[] {
  return (block.evidence ?? []).map((e) => ({
    type: e.type,
    validatorAddress: e.validator_address,
    power: e.power,
    infractionHeight: e.infraction_height,
    time: e.time,
    totalPower: e.total_power,
  }));
}
