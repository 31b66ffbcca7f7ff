// What `/readyz` checks, per process. The node's process: its store answers a read and its
// engine can take transactions (solo: it has not failed; CometBFT: the RPC answers and it is not
// catching up). An HTTP worker: its own read-only store, and the node's process's checks over
// IPC (ipc/opsIpc.ts). Checks run at most once at a time: concurrent probes share the one running,
// so a flood of /readyz costs one CometBFT `status` call, not one each.
import type { EngineReadiness } from "../engine/readiness.js";
import { checkOk, checkStore, type Readiness, type ReadinessProbe } from "../http/routes/health.js";
import type { WorkerOps } from "./ipc/opsIpc.js";

interface Readable {
  getChainState(): Promise<unknown>;
}

export function nodeReadiness(store: Readable, engine: EngineReadiness): ReadinessProbe {
  return coalesced(async () => {
    const [storeOutcome, engineReason] = await Promise.all([checkStore(store), engine.notReadyReason()]);
    return { checks: { store: storeOutcome, engine: engineReason ?? checkOk } };
  });
}

export function workerReadiness(store: Readable, ops: Pick<WorkerOps, "nodeChecks">): ReadinessProbe {
  return coalesced(async () => {
    const [own, node] = await Promise.all([checkStore(store), ops.nodeChecks()]);
    return { checks: { ...node, worker_store: own } };
  });
}

function coalesced(check: () => Promise<Readiness>): ReadinessProbe {
  let running: Promise<Readiness> | null = null;
  return {
    check: () => {
      running ??= check().finally(() => {
        running = null;
      });
      return running;
    },
  };
}
