// The child process of the SQLite crash test (sqliteStore.test.ts, run as crashChildMain.ts): it commits blocks to the
// store at argv[2] until it is killed, printing `committed <height>` after each commit returns.
// The blocks are a function of their height, so the parent knows what each one must hold.

import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { CommittedTx } from "../../../src/transaction/committed.js";
import { block, createTx, ref, transferTx } from "./fixtures.js";

export const crashCreatesPerBlock = 100;

/** Block h: 100 CREATEs, and from h = 2 on, 100 TRANSFERs spending block h-1's CREATEs. */
export function crashBlockTxs(height: number): CommittedTx[] {
  const creates: CommittedTx[] = [];
  const transfers: CommittedTx[] = [];
  for (let i = 0; i < crashCreatesPerBlock; i++) {
    const label = `crash:${height}:${i}`;
    creates.push(crashCreate(height, i));
    if (height > 1) {
      const spent = crashCreate(height - 1, i);
      const spends = [ref(spent, 0)];
      transfers.push(transferTx({ label: `${label}:t`, assetId: spent.id, spends }));
    }
  }
  return [...creates, ...transfers];
}

function crashCreate(height: number, i: number): CommittedTx {
  const label = `crash:${height}:${i}`;
  return createTx({ label, data: { name: `item ${height} ${i}` }, metadata: { i } });
}

/** The child's work (crashChildMain.ts runs it): commits until it is killed. */
export async function runCrashChild(path: string): Promise<void> {
  const store = SqliteStore.open({ path });
  for (;;) {
    const height = (await store.getChainState()).height + 1;
    await store.commitBlock(block(height, crashBlockTxs(height)));
    process.stdout.write(`committed ${height}\n`);
  }
}
