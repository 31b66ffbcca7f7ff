// The committed state the checks read (checkTx, recheckTx, dryCheckTx), one store read for as
// many checks as arrive while the previous one is in flight. An idle node reads at once; a busy
// one reads in batches. This matters for a networked store: each read is a round trip, and a
// check must read again when a block commits during its read (its state would be older than
// the pending pool it is checked with), so under load reads one at a time would mostly be
// thrown away (measured on PostgreSQL: 13 reads per transaction, ~300 tx/s).
import type { LedgerStore } from "../store/store.js";
import type { AnyTxKind, PreparedBase } from "./txKind.js";

/** Most transactions one batched read covers. */
export const checkReadTxsMax = 1_024;

/** A read of committed state and the pending pool's commit count when it began. */
export interface CheckRead {
  readonly state: unknown;
  readonly generation: number;
}

interface Waiting {
  readonly tx: PreparedBase;
  readonly resolve: (read: CheckRead) => void;
  readonly reject: (error: unknown) => void;
}

export class CheckReads {
  readonly #store: LedgerStore;
  readonly #generation: () => number;
  readonly #waiting = new Map<AnyTxKind, Waiting[]>();
  readonly #reading = new Set<AnyTxKind>();

  constructor(store: LedgerStore, generation: () => number) {
    this.#store = store;
    this.#generation = generation;
  }

  /** What `kind` reads for `tx`: a state read for it and maybe others (a superset is fine). */
  read(kind: AnyTxKind, tx: PreparedBase): Promise<CheckRead> {
    return new Promise((resolve, reject) => {
      const queue = this.#waiting.get(kind) ?? [];
      queue.push({ tx, resolve, reject });
      this.#waiting.set(kind, queue);
      if (!this.#reading.has(kind)) void this.#next(kind);
    });
  }

  async #next(kind: AnyTxKind): Promise<void> {
    const queue = this.#waiting.get(kind) ?? [];
    const batch = queue.splice(0, checkReadTxsMax);
    if (batch.length === 0) return;
    this.#reading.add(kind);
    const generation = this.#generation();
    try {
      const state = await kind.read(this.#store, batch.map((w) => w.tx), null);
      for (const waiting of batch) waiting.resolve({ state, generation });
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      this.#reading.delete(kind);
      void this.#next(kind);
    }
  }
}
