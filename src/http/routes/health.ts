// Health for operators and orchestrators (Kubernetes' probes, a load balancer's checks), at the
// root beside the API:
//   GET /healthz  200 {"ok": true} while this process serves HTTP (liveness);
//   GET /readyz   200 {"ready": true, "checks": {...}} when the node can take transactions, else
//                 503 {"ready": false, "reason": "...", "checks": {...}} (readiness).
// A 503 here is the resource's state, not a failed request, so it is answered with its checks
// rather than thrown to the error handler's `{"message", "status"}`.
import type { FastifyInstance } from "fastify";
import { addResource } from "../resource.js";
import { sendJson } from "../reply.js";

/** One check's outcome: "ok", or why not. */
export type CheckOutcome = string;

export interface Readiness {
  /** By check name (`store`, `engine`, ...): "ok" or the reason it is not. */
  readonly checks: Readonly<Record<string, CheckOutcome>>;
}

/** Whatever can tell whether the node is ready; the composition root decides what it checks. */
export interface ReadinessProbe {
  check(): Promise<Readiness>;
}

export const checkOk = "ok";

/** The checks that failed, as `[name, reason]`; none: the node is ready. */
export function failedChecks(readiness: Readiness): Array<[string, CheckOutcome]> {
  return Object.entries(readiness.checks).filter(([, outcome]) => outcome !== checkOk);
}

const liveBody = JSON.stringify({ ok: true });

export function registerHealthRoutes(app: FastifyInstance, probe: ReadinessProbe): void {
  addResource(app, "/healthz", { GET: async (_request, reply) => sendJson(reply, 200, liveBody) });
  addResource(app, "/readyz", {
    GET: async (_request, reply) => {
      const readiness = await probe.check();
      const { checks } = readiness;
      const failed = failedChecks(readiness);
      if (failed.length === 0) return sendJson(reply, 200, JSON.stringify({ ready: true, checks }));
      const reason = failed.map(([name, outcome]) => `${name}: ${outcome}`).join("; ");
      return sendJson(reply, 503, JSON.stringify({ ready: false, reason, checks }));
    },
  });
}

/** The store answers a read: open, and its file readable. */
export async function checkStore(store: { getChainState(): Promise<unknown> }): Promise<CheckOutcome> {
  try {
    await store.getChainState();
    return checkOk;
  } catch (error) {
    return `the store cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** Without a probe from the node: the store only. */
export function storeReadiness(store: { getChainState(): Promise<unknown> }): ReadinessProbe {
  return { check: async () => ({ checks: { store: await checkStore(store) } }) };
}
