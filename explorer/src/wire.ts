// The shapes the API answers (docs/http-api.md), as the explorer reads them. A node may be
// another implementation, and a block may hold the earlier interface variants' transactions, so
// nothing here is trusted: every reader checks the shape and the page shows what fails a check
// as plain JSON instead of breaking.
import type { BlockEvent, TransactionEvent } from "../../src/client/streamSubscription.js";
import type { Balance, Output as OutputOfAKey } from "../../src/client/client.js";

/** A v2.0 transaction's condition details: a tree of Ed25519 keys under thresholds. */
export interface ConditionDetails {
  readonly type: string;
  readonly public_key?: string;
  readonly threshold?: number;
  readonly subconditions?: readonly unknown[];
}

export interface Output {
  readonly amount: string;
  readonly public_keys: readonly string[];
  readonly condition: { readonly details?: unknown; readonly uri?: string };
}

export interface Input {
  readonly owners_before: readonly string[];
  readonly fulfills: { readonly transaction_id: string; readonly output_index: number } | null;
  readonly fulfillment: unknown;
}

/** A BigchainDB 2.0 transaction (CREATE, TRANSFER, VALIDATOR_ELECTION, VOTE, ...). */
export interface Transaction {
  readonly id: string;
  readonly version?: string;
  readonly operation: string;
  readonly asset: { readonly data?: unknown; readonly id?: string } | null;
  readonly metadata: unknown;
  readonly inputs: readonly Input[];
  readonly outputs: readonly Output[];
}

// The streams' messages are the client's types (ledgerd/client), so the two cannot drift apart.
export type { BlockEvent, TransactionEvent } from "../../src/client/streamSubscription.js";

/** A validator as the page shows it: its key as the node writes it, and its power. */
export interface Validator {
  readonly key: string;
  readonly power: number;
}

/** An output of `GET /outputs`, with `amount` and `asset_id` when the node knows `include=`. */
export type OutputRef = OutputOfAKey;
export type { Balance };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === "string";
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Every value: for a list whose items are sorted by their shape after reading. */
export const isAnything = (v: unknown): v is unknown => v !== undefined;

export function isInput(v: unknown): v is Input {
  if (!isObject(v) || !isStringList(v.owners_before)) return false;
  const f = v.fulfills;
  return f === null || (isObject(f) && isString(f.transaction_id) && isCount(f.output_index));
}

export function isOutput(v: unknown): v is Output {
  return isObject(v) && isString(v.amount) && isStringList(v.public_keys) && isObject(v.condition);
}

/** Whether `v` has the v2.0 shape the transaction view draws; anything else is shown as JSON. */
export function isTransaction(v: unknown): v is Transaction {
  if (!isObject(v) || !isString(v.id) || !isString(v.operation)) return false;
  if (v.asset !== null && !isObject(v.asset)) return false;
  return Array.isArray(v.inputs) && v.inputs.every(isInput) && Array.isArray(v.outputs) && v.outputs.every(isOutput);
}

/** The id of a transaction of any shape (the earlier variants name it `id` too), or null. */
export function idOf(v: unknown): string | null {
  return isObject(v) && isString(v.id) ? v.id : null;
}

/** The operation of a transaction of any shape, or null. */
export function operationOf(v: unknown): string | null {
  if (!isObject(v)) return null;
  if (isString(v.operation)) return v.operation;
  // The earlier variants keep it inside `transaction` (docs/legacy-variants.md).
  const inner = v.transaction;
  return isObject(inner) && isString(inner.operation) ? inner.operation : null;
}

/** An asset's id as a transaction names it: its own for a CREATE, `asset.id` otherwise. */
export function assetIdOf(tx: Transaction): string | null {
  if (tx.operation === "CREATE") return tx.id;
  return isString(tx.asset?.id) ? tx.asset.id : null;
}

export function isConditionDetails(v: unknown): v is ConditionDetails {
  return isObject(v) && isString(v.type);
}

export function isTransactionEvent(v: unknown): v is TransactionEvent {
  return isObject(v) && isCount(v.height) && isString(v.transaction_id) && isString(v.asset_id);
}

export function isBlockEvent(v: unknown): v is BlockEvent {
  return isObject(v) && isCount(v.height) && isStringList(v.transaction_ids);
}

/**
 * An entry of `GET /validators`: the spec's `{"pub_key": {"data"}, "power"}` (ledgerd,
 * compatibility.md #1), or BigchainDB 2.2.2's `{"public_key": {"value"}, "voting_power"}`.
 */
export function validatorOf(v: unknown): Validator | null {
  if (!isObject(v)) return null;
  const keyHolder = isObject(v.pub_key) ? v.pub_key : isObject(v.public_key) ? v.public_key : null;
  const key = keyHolder === null ? null : isString(keyHolder.data) ? keyHolder.data : isString(keyHolder.value) ? keyHolder.value : null;
  const power = typeof v.power === "number" ? v.power : typeof v.voting_power === "number" ? v.voting_power : null;
  return key === null || power === null ? null : { key, power };
}

export function isOutputRef(v: unknown): v is OutputRef {
  return isObject(v) && isString(v.transaction_id) && isCount(v.output_index);
}

export function isBalance(v: unknown): v is Balance {
  return isObject(v) && isString(v.asset_id) && isString(v.amount);
}

/** `{"height", "transactions": [...]}` of `GET /blocks/<h>`; the transactions' shapes vary. */
export function blockTransactionsOf(v: unknown): readonly unknown[] | null {
  return isObject(v) && Array.isArray(v.transactions) ? v.transactions : null;
}

/** The height of `GET /blocks/latest` (ledgerd, Planetmint), or null. */
export function latestHeightOf(v: unknown): number | null {
  return isObject(v) && isCount(v.height) ? v.height : null;
}

/** A list answer's items that pass `check`; null when the answer is no list. */
export function listOf<T>(v: unknown, check: (item: unknown) => item is T): T[] | null {
  return Array.isArray(v) ? v.filter(check) : null;
}

export { isObject, isString };
