// What a kind of transaction is to the ledger: the one interface every kind implements (v2.0 in
// kinds/v2/, the legacy variants A and B in kinds/legacy/), so that the ledger, the pending
// pool, both engines, the worker processes' messages and the HTTP routes handle transactions
// without knowing their kind. A kind is registered once, in kinds/registry.ts.
//
// A transaction's life, and the part of this interface each step uses:
//   bytes --claims, prepare--> prepared (stateless: worker threads, cached by exact bytes)
//         --read, validatePending--> pending (checkTx: committed state plus the pending pool;
//                                    forEachSpend says what it holds while pending)
//         --openBlock: execute--> valid or refused in a block (committed state plus the block's
//                                 earlier transactions of its kind)
//         --write, event--> what the store writes at commit, what the stream sends.
// Kinds share the blocks, their order and the app hash; ids, outputs and spends are each kind's
// own namespace (docs/compatibility.md #14: a v2.0 transaction cannot spend a legacy output).
//
// Adding a kind: its pure rules in their own folder beside transaction/ and legacy/, its
// TxKind in ledger/kinds/<name>/, one line in kinds/registry.ts. What it stores needs the
// store's tables (store.ts, BlockWrite); a new HTTP interface needs a door (doors.ts) and a route.
import type { Rejection } from "../errors/ledgerError.js";
import type { JsonValue } from "../json/jsonValue.js";
import type { BlockWrite, LedgerStore, Validator } from "../store/store.js";

/** What every prepared transaction has, whatever its kind. Plain data (structured clone). */
export interface PreparedBase {
  readonly id: string;
  /** The transaction as it is stored and answered (compact JSON). */
  readonly json: string;
}

/**
 * The HTTP interface a transaction is posted through: `v1` (`POST /api/v1/transactions`) or
 * `legacy` (`POST /transactions`). Bytes posted to a door are read only as its kinds; bytes of
 * unknown door (an ABCI transaction) as any kind.
 */
export type Door = string;

/** What the event stream sends for a committed transaction (events/streamServer.ts). */
export interface StreamEvent {
  readonly id: string;
  readonly assetId: string;
}

/**
 * A kind's part of a block's store write (v2.0 fills `txs`, legacy fills `legacy`), and a change
 * of the validator set for the engine (an election that concluded in the block).
 */
export type BlockContribution = Partial<Omit<BlockWrite, "height" | "appHash">> & {
  /** Each changed validator and its new power (0: removed), as CometBFT's `validator_updates`. */
  readonly validatorUpdates?: readonly Validator[];
};

/**
 * The pending transactions of one kind, as a check sees them: when it is a recheck, the one
 * rechecked (`self`) is left out of `has` and `isSpent` (its own id and spends are no conflict
 * with itself).
 */
export interface PendingTxs<P> {
  /** Whether another pending transaction has this id. */
  has(id: string): boolean;
  /** The pending transaction with this id, `self` included (the maker of an output). */
  get(id: string): P | undefined;
  /** Whether another pending transaction spends the output under this key. */
  isSpent(key: string): boolean;
}

/** One block's execution of one kind's transactions, in block order. */
export interface KindBlock<P> {
  /**
   * Checks `tx` against committed state plus the valid transactions of this kind applied so far;
   * applies it when valid. `position`: its place among the block's valid transactions of every
   * kind, from 0 (the order the app hash covers).
   */
  execute(tx: P, position: number): Rejection | null;
  /** What the block writes for this kind; asked once, after the last `execute`. */
  write(): BlockContribution;
}

/**
 * A kind of transaction. `P` is its prepared transaction, `S` what it reads of committed state
 * for a batch of transactions (one read per block or per check, never per input).
 */
export interface TxKind<P extends PreparedBase = PreparedBase, S = unknown> {
  /** Its name on the wire between this node's processes, and in logs. */
  readonly name: string;
  readonly door: Door;
  /**
   * Whether a body of unknown kind is this kind's. Kinds are asked in registration order; the
   * last kind of a door takes what no other claims (and gives it its own rejection).
   */
  claims(body: JsonValue): boolean;
  /**
   * Every stateless check, pure (worker threads): a body as read, the posted text if compact.
   *
   * `restored` (default false) is the one flag of preparation, here and in every kind's prepare
   * function: true only for a valid transaction of a state-sync snapshot whose chain was checked
   * against a trusted app hash (docs/state-sync.md). Such a transaction is prepared without
   * checking its signatures (taken as valid), and a kind may take its id as the body's instead of
   * hashing it again: the restore's first pass hashed these very bytes, and the app hash binds
   * every id. Nothing a client sends is ever prepared with it (doors.ts restoredDoor).
   */
  prepare(body: JsonValue, posted: string | undefined, restored?: boolean): P | Rejection;
  /** Whether a prepared transaction is this kind's (prepared results carry no tag). */
  owns(tx: PreparedBase): boolean;
  /**
   * Visits the outputs `tx` spends: the output's key in this kind's namespace and the id of the
   * transaction that made it. While pending, these are spent for every other check.
   */
  forEachSpend(tx: P, visit: (key: string, makerId: string) => void): void;
  /**
   * Whether a pending transaction that spends only committed outputs and was valid one commit
   * ago is still valid unless that commit spent one of its outputs (nothing else it is checked
   * against can change). When true, a recheck skips the read (PendingPool.stillValid).
   */
  readonly recheckBySpends: boolean;
  /**
   * Of a `recheckBySpends` kind, the transactions whose validity also rests on state a block can
   * change without spending their inputs: they are rechecked in full after every block.
   */
  recheckInFull?(tx: P): boolean;
  /** One batched read of committed state; `height` is the block's, or null (checkTx: latest). */
  read(store: LedgerStore, txs: readonly P[], height: number | null): Promise<S>;
  /**
   * Synchronous: `tx` against `committed` plus the pending pool: their spends count as spent,
   * their outputs can be spent (a chained spend; its block checks it again). `self` is `tx` when
   * it is itself pending (a recheck), else null.
   */
  validatePending(tx: P, committed: S, pending: PendingTxs<P>, self: P | null): Rejection | null;
  openBlock(committed: S): KindBlock<P>;
  /** What the stream sends for it once committed, or null (not on the stream). */
  event(tx: P): StreamEvent | null;
  /**
   * The id a stored transaction's JSON hashes to, or null when it hashes to none (verify-chain:
   * an edited or corrupted store). Throws nothing: bad JSON is null too.
   */
  storedId(json: string): string | null;
  /** The same of a body already read (a state-sync restore reads each body once). */
  idOfBody(body: JsonValue | null): string | null;
  /**
   * What the store wrote for a transaction it holds, re-derived from the stored JSON alone by
   * the kind's own rules (verify-chain checks the store's derived rows against it); `position`
   * is its place among the block's valid transactions. A text saying why when the JSON no
   * longer passes them, which a committed transaction always did.
   */
  stored(json: string, position: number): BlockContribution | string;
  /** `tx` as JSON-safe data, for a channel that carries JSON only (no bigint, no bytes). */
  encode(tx: P): unknown;
  /** The inverse of `encode`. From this node's own process: a malformed value is asserted. */
  decode(wire: unknown): P;
}

/** Any registered kind, as the ledger holds them side by side. */
// Methods are bivariant in their parameters, so every TxKind<P, S> is one of these.
export type AnyTxKind = TxKind<PreparedBase, unknown>;
