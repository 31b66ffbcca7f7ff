// What one stream subscriber received, held against the reference chain (chaos/ledgerView.ts):
// every committed transaction of the stretch it covered, exactly once, in order (height, then
// index in the block), across its reconnects. docs/faults.md, "The checker", defines the stretch.
import type { StreamConnectionEvent, StreamEvent } from "./history.js";
import type { LedgerView } from "./ledgerView.js";

export interface StreamCoverage {
  readonly events: number;
  /** Sockets opened after the first. */
  readonly reconnects: number;
  /** Transactions received a second time (the later receipt). */
  readonly duplicates: readonly StreamEvent[];
  /** Transactions received after one placed later on the same socket. */
  readonly outOfOrder: readonly StreamEvent[];
  /** Transactions no node committed at the height the event names. */
  readonly unknown: readonly StreamEvent[];
  /** Committed transactions of the covered stretch never received while a socket was open. */
  readonly missing: readonly string[];
  /** Committed transactions of the covered stretch that fell between two sockets. */
  readonly missedWhileDisconnected: number;
}

/** One subscriber's events in the order they happened (history order). */
export type SubscriberEvents = readonly (StreamEvent | StreamConnectionEvent)[];

/**
 * `firstPostAtMs`: when each transaction was first posted; a transaction posted after the
 * subscriber's first socket opened committed after it, so its block is in the stretch covered.
 */
export function streamCoverage(
  events: SubscriberEvents,
  view: LedgerView,
  firstPostAtMs: ReadonlyMap<string, number>,
): StreamCoverage {
  const walk = walkEvents(events, view);
  if (walk.received.size === 0) {
    return { ...walk, missing: [], missedWhileDisconnected: 0 };
  }
  const start = coveredStart(events, view, firstPostAtMs, walk);
  const missing: string[] = [];
  let missedWhileDisconnected = 0;
  for (let position = start; position <= walk.lastPosition; position++) {
    const txId = view.order[position] as string;
    if (walk.received.has(txId)) continue;
    if (walk.expectedOnSocket.has(position)) missing.push(txId);
    else missedWhileDisconnected++;
  }
  return { ...walk, missing, missedWhileDisconnected };
}

interface Walk {
  events: number;
  reconnects: number;
  readonly duplicates: StreamEvent[];
  readonly outOfOrder: StreamEvent[];
  readonly unknown: StreamEvent[];
  readonly received: Set<string>;
  /** Positions skipped between two transactions received on one socket. */
  readonly expectedOnSocket: Set<number>;
  firstPosition: number;
  lastPosition: number;
  /** Whether the first transaction received came on the first socket. */
  firstOnFirstSocket: boolean;
}

/** Reads the events once: receipts, duplicates, order within each socket, skipped positions. */
function walkEvents(events: SubscriberEvents, view: LedgerView): Walk {
  const walk: Walk = {
    events: 0, reconnects: 0, duplicates: [], outOfOrder: [], unknown: [], received: new Set(),
    expectedOnSocket: new Set(), firstPosition: Infinity, lastPosition: -1, firstOnFirstSocket: true,
  };
  let opened = 0;
  let socketLast = -1; // the highest position received on the current socket
  for (const event of events) {
    if (event.type === "stream-connection") {
      if (event.state === "opened" && opened++ > 0) walk.reconnects++;
      socketLast = -1;
      continue;
    }
    walk.events++;
    const position = view.positionOf.get(event.txId);
    if (position === undefined || view.placeOf.get(event.txId)?.height !== event.height) {
      walk.unknown.push(event);
    } else if (walk.received.has(event.txId)) {
      walk.duplicates.push(event);
    } else {
      if (walk.received.size === 0) walk.firstOnFirstSocket = opened <= 1;
      walk.received.add(event.txId);
      walk.firstPosition = Math.min(walk.firstPosition, position);
      walk.lastPosition = Math.max(walk.lastPosition, position);
      if (position < socketLast) walk.outOfOrder.push(event);
      else {
        for (let p = socketLast + 1; socketLast >= 0 && p < position; p++) walk.expectedOnSocket.add(p);
        socketLast = position;
      }
    }
  }
  return walk;
}

/**
 * The first position the subscriber had to receive: its first receipt, or earlier, the first
 * transaction of the lowest block holding a transaction first posted after its first socket
 * opened. What lies between that block and the first receipt was expected on the first socket
 * when the first receipt came on it, and fell in a closed stretch otherwise.
 */
function coveredStart(
  events: SubscriberEvents,
  view: LedgerView,
  firstPostAtMs: ReadonlyMap<string, number>,
  walk: Walk,
): number {
  const openedAtMs = events.find((e) => e.type === "stream-connection" && e.state === "opened")?.atMs;
  if (openedAtMs === undefined) return walk.firstPosition;
  let lowest = Infinity;
  for (const [txId, atMs] of firstPostAtMs) {
    const height = atMs > openedAtMs ? view.placeOf.get(txId)?.height : undefined;
    if (height !== undefined && height < lowest) lowest = height;
  }
  const start = view.firstPositionOf.get(lowest);
  if (start === undefined || start >= walk.firstPosition) return walk.firstPosition;
  if (walk.firstOnFirstSocket) {
    for (let p = start; p < walk.firstPosition; p++) walk.expectedOnSocket.add(p);
  }
  return start;
}
