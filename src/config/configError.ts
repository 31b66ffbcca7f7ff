/** One thing wrong with the settings: which key, why, and where its value came from. */
export interface ConfigProblem {
  /** The setting's dotted key (`server.bind`), or the env variable / file when no key applies. */
  readonly key: string;
  readonly reason: string;
  /** `default`, `file <path>`, `env LEDGERD_X`, `flag --x`; `env` or `flags` for an unknown name. */
  readonly source: string;
}

/**
 * The settings cannot be used: start-up stops with this message. Every problem found is listed,
 * so a user fixes a config file in one pass rather than one error per run.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";

  constructor(
    readonly problems: readonly ConfigProblem[],
    options: { cause?: unknown } = {},
  ) {
    const message = problems.map(describeProblem).join("\n");
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

function describeProblem(problem: ConfigProblem): string {
  return `${problem.key} (${problem.source}): ${problem.reason}`;
}
