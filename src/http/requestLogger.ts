// Fastify gives every request a child of the node's logger, bound to the request's id. A pino
// child costs ~2 µs to build (its bindings serialised, its methods set up), and almost no
// request writes a line: requests are not logged one by one, only errors are (errorHandler.ts).
// So a request's logger is built on the first line it writes; until then it is this stand-in.
import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions, LogFn } from "pino";

/** Fastify's `childLoggerFactory`: the request's child of `parent`, built when first used. */
export function lazyChildLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options);
}

const levels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

// The log methods are put on the prototype below, so a stand-in is one small object.
interface LazyChildLogger extends Record<(typeof levels)[number], LogFn> {}

class LazyChildLogger implements FastifyBaseLogger {
  #built: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The real child, built once. */
  get built(): FastifyBaseLogger {
    this.#built ??= this.parent.child(this.bindings, this.options);
    return this.#built;
  }

  get level(): string {
    return this.#built?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.built.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.built.child(bindings, options);
  }
}

for (const level of levels) {
  LazyChildLogger.prototype[level] = function (this: LazyChildLogger, ...args: unknown[]): void {
    const built = this.built;
    (built[level] as (...args: unknown[]) => void).apply(built, args);
  } as LogFn;
}
