// `ledgerd audit` (docs/transparency.md "Auditor"): parses the flags, runs the auditor
// (src/tools/audit.ts) once or following, prints its lines, and exits with the worst round's
// code: 0 every checkpoint verified, 1 a node could not be checked (or a usage error), 2 a bad
// signature, a cosignature quorum unmet or a sampled inclusion proof that fails, 3 a rollback or
// a split view.
import { setTimeout as wait } from "node:timers/promises";
import type { Command } from "commander";
import { parseHostPort } from "../config/parseHostPort.js";
import { MetricsServer } from "../metrics/metricsServer.js";
import { auditExit, auditIntervalSecondsDefault, auditSamplesDefault } from "../tools/auditOptions.js";

interface AuditFlags {
  node: string[];
  state: string;
  key: string[];
  witness: string[];
  quorum?: string;
  follow?: boolean;
  interval: string;
  samples: string;
  metrics?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function count(text: string, flag: string): number {
  if (!/^(0|[1-9][0-9]{0,8})$/.test(text)) throw new Error(`${flag} ${text} is not a count`);
  return Number(text);
}

async function runAudit(flags: AuditFlags): Promise<number> {
  // The auditor is loaded when the command runs, not when the command line is parsed.
  const { AuditMetrics, followAudit, noteKeysOf } = await import("../tools/audit.js");
  const witnesses = noteKeysOf(flags.witness, true);
  const quorum = flags.quorum === undefined ? witnesses.length : count(flags.quorum, "--quorum");
  if (quorum > witnesses.length) throw new Error(`--quorum ${quorum} is more than the ${witnesses.length} --witness keys`);
  const options = { nodes: flags.node, keys: noteKeysOf(flags.key, false), witnesses, quorum, samples: count(flags.samples, "--samples") };
  const intervalMs = count(flags.interval, "--interval") * 1000;
  if (intervalMs === 0) throw new Error("--interval 0: at least 1 second between rounds");
  const metrics = flags.metrics === undefined ? undefined : new AuditMetrics();
  const listen = flags.metrics === undefined ? null : parseHostPort(flags.metrics);
  if (flags.metrics !== undefined && listen === null) throw new Error(`--metrics ${flags.metrics} is not host:port`);
  const server = metrics === undefined ? undefined : await MetricsServer.start(listen!, { render: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }) });
  if (server !== undefined) console.log(`metrics at http://${server.address.host}:${server.address.port}/metrics`);
  const stop = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => stop.abort());
  const next = async (): Promise<boolean> => {
    if (flags.follow !== true) return false;
    await wait(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
    return !stop.signal.aborted;
  };
  try {
    return await followAudit(options, { statePath: flags.state, log: (line) => console.log(line), next, ...(metrics === undefined ? {} : { metrics }) });
  } finally {
    await server?.close();
  }
}

export function registerAuditCommand(program: Command): void {
  program
    .command("audit")
    .description("Check nodes' signed checkpoints against the last verified ones; alarm on a rollback or a split view (docs/transparency.md)")
    .requiredOption("--node <URL>", "a node to audit (repeat for several)", collect, [])
    .requiredOption("--state <FILE>", "the auditor's state: the last verified checkpoint of each origin, each node's pinned key")
    .option("--key <VKEY>", "a verifier key the checkpoints must be signed by (repeat for several; default: each node's, pinned on first use)", collect, [])
    .option("--witness <VKEY>", "a trusted witness's cosignature verifier key (repeat for several)", collect, [])
    .option("--quorum <N>", "how many of the --witness keys must cosign (default: all)")
    .option("--follow", "run a round every --interval seconds until stopped (SIGINT, SIGTERM)")
    .option("--interval <S>", "seconds between rounds when following", String(auditIntervalSecondsDefault))
    .option("--samples <K>", "inclusion proofs of new leaves checked per checkpoint", String(auditSamplesDefault))
    .option("--metrics <HOST:PORT>", "serve Prometheus metrics at /metrics there")
    .action(async (flags: AuditFlags) => {
      try {
        process.exitCode = await runAudit(flags);
      } catch (error) {
        console.error(`ledgerd audit: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = auditExit.trouble;
      }
    });
}
