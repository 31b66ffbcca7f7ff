// Failpoints: named places in the code where a test can have the process killed with SIGKILL,
// so that a crash lands exactly there instead of wherever timing puts it (in the style of etcd's
// gofail). A testing aid only, never for production (docs/failpoints.md): the
// variable LEDGERD_TEST_FAILPOINTS="name[=count],..." is read once, when this module loads; the
// count-th time the named place is reached (1 by default) the process writes one line to stderr
// and kills itself. Unset, `failpoint` costs one comparison. Imports nothing of ours: every
// layer may mark its places (as src/workerThread.ts, it sits beside the layers).

/** The variable; LEDGERD_TEST_* is the prefix the settings leave to the project's tooling. */
export const failpointsEnv = "LEDGERD_TEST_FAILPOINTS";

/** The places, each where its name says (docs/failpoints.md). */
export const failpointNames = ["finalize.mid", "commit.answered-before-durable", "election.conclude", "backup.mid", "import.block"] as const;
export type FailpointName = (typeof failpointNames)[number];

/** How many more times each armed place may be reached before the kill; null: none armed. */
const remaining: Map<string, number> | null = parseFailpoints(process.env[failpointsEnv]);

/** `name[=count],...` to each name's count; a name that is not a place is refused. */
export function parseFailpoints(text: string | undefined): Map<string, number> | null {
  if (text === undefined || text.trim() === "") return null;
  const armed = new Map<string, number>();
  for (const item of text.split(",")) {
    const [name = "", count = "1"] = item.trim().split("=");
    if (!(failpointNames as readonly string[]).includes(name)) throw new Error(`${failpointsEnv}: no failpoint ${name}`);
    if (!/^[1-9][0-9]{0,8}$/.test(count)) throw new Error(`${failpointsEnv}: ${name}'s count ${count} is not a positive integer`);
    armed.set(name, Number(count));
  }
  return armed;
}

/** The place `name` is reached: the process dies here if that was its armed count. */
export function failpoint(name: FailpointName): void {
  if (remaining === null) return;
  const left = remaining.get(name);
  if (left === undefined) return;
  if (left > 1) {
    remaining.set(name, left - 1);
    return;
  }
  process.stderr.write(`failpoint ${name}: SIGKILL\n`);
  process.kill(process.pid, "SIGKILL");
}
