/**
 * An engine that can say whether it can take transactions now (the node's `/readyz`): null
 * when it can, else why not, in a few words an operator can act on.
 */
export interface EngineReadiness {
  notReadyReason(): Promise<string | null>;
}

/**
 * Longest a readiness check waits for an answer (CometBFT's RPC, the node's process over IPC):
 * slower is "not answering". Below the usual probe timeouts' next step (Kubernetes: 1 s default,
 * commonly raised to a few seconds), so the probe gets the reason rather than a timeout.
 */
export const readinessTimeoutMs = 2_000;
