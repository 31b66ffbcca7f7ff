// The registered kinds of transaction (txKind.ts), in the order they are asked to claim a body
// of unknown kind: a kind that takes a subset of another's bodies comes before it, and the last
// kind of each door is that door's default. Adding a kind is its folder plus one line here.
import type { Rejection } from "../../errors/ledgerError.js";
import type { JsonValue } from "../../json/jsonValue.js";
import { readJsonOrNull } from "../../json/readJson.js";
import type { AnyTxKind, Door, PreparedBase } from "../txKind.js";
import { legacyKind } from "./legacy/legacyKind.js";
import { v2Kind } from "./v2/v2Kind.js";

export const txKinds: readonly AnyTxKind[] = [legacyKind, v2Kind];

const byName = new Map(txKinds.map((kind) => [kind.name, kind]));

/** The kind a prepared transaction is of. A prepared transaction of no kind is a bug. */
export function kindOf(tx: PreparedBase): AnyTxKind {
  for (const kind of txKinds) if (kind.owns(tx)) return kind;
  throw new Error(`a prepared transaction of no registered kind: ${tx.id}`);
}

/** The kind of this name (from another process of this node: an unknown name is a bug). */
export function kindNamed(name: string): AnyTxKind {
  const kind = byName.get(name);
  if (kind === undefined) throw new Error(`no transaction kind named ${name}`);
  return kind;
}

/**
 * The kind a body is read as: among the kinds of `door` (all kinds without one), the first that
 * claims it, else the door's default (the last), whose rules then refuse it.
 */
export function kindForBody(body: JsonValue, door: Door | undefined): AnyTxKind {
  let fallback: AnyTxKind | undefined;
  for (const kind of txKinds) {
    if (door !== undefined && kind.door !== door) continue;
    if (kind.claims(body)) return kind;
    fallback = kind;
  }
  if (fallback === undefined) throw new Error(`no transaction kind posted through ${door ?? "any door"}`);
  return fallback;
}

/** Stateless preparation by the kind `kindForBody` picks; `restored`: TxKind.prepare's (a restore only, doors.ts restoredDoor). */
export function prepareBody(
  body: JsonValue,
  posted: string | undefined,
  door: Door | undefined,
  restored = false,
): PreparedBase | Rejection {
  return kindForBody(body, door).prepare(body, posted, restored);
}

/** The id a committed transaction's stored JSON hashes to by its kind's rule, or null (kinds' storedId). */
export function restoredIdOf(json: string): string | null {
  const body = readJsonOrNull(json);
  return body === null ? null : kindForBody(body, undefined).idOfBody(body);
}
