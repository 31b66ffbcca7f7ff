// Progress of the long commands (export, import, verify-chain, restore, migrate-store) on
// stderr. In a terminal: one bar redrawn in place (done/total, rate, time left), at most
// `progressRedrawsPerSecondMax` times a second, cleared when the command ends, so stdout's
// result line is all that stays. Elsewhere (a pipe, a file, journald under systemd): one plain
// line per `progressLineIntervalMs`, as before bars existed, so scripts and logs see no
// escape codes and no more lines than they did.

/** A terminal is redrawn at most this often: the eye sees no more, and a fast loop pays little. */
export const progressRedrawsPerSecondMax = 10;
/** How often a plain line is written when stderr is not a terminal. */
export const progressLineIntervalMs = 2_000;
/** The bar's width in characters, when the terminal is wide enough for it and the figures. */
export const progressBarCharsMax = 30;
/** Below this many columns the bar is left out and only the figures are drawn. */
const progressBarCharsMin = 5;
/** Assumed when the terminal does not say how wide it is (none, or 0 as a pty never sized). */
const defaultColumns = 80;

/** What the reporter writes to: process.stderr, or a test's stand-in. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

export interface ProgressDeps {
  readonly stream?: ProgressStream;
  /** Milliseconds, as `Date.now()`. */
  readonly now?: () => number;
}

export interface Progress {
  /** `done` of `total` (blocks, heights); throttled, so it may be called for every one. */
  update(done: number, total: number): void;
  /** Clears the bar (a terminal) so the command's own output starts on a clean line. */
  finish(): void;
}

/** A reporter for the command `label`, drawing a bar on a terminal and plain lines elsewhere. */
export function progress(label: string, deps: ProgressDeps = {}): Progress {
  const stream = deps.stream ?? process.stderr;
  const now = deps.now ?? Date.now;
  return stream.isTTY === true ? terminalProgress(label, stream, now) : lineProgress(label, stream, now);
}

/** Runs `work` with a reporter for `label`, finished however the work ends. */
export async function withProgress<T>(label: string, work: (update: Progress["update"]) => Promise<T>, deps: ProgressDeps = {}): Promise<T> {
  const reporter = progress(label, deps);
  try {
    return await work((done, total) => reporter.update(done, total));
  } finally {
    reporter.finish();
  }
}

function lineProgress(label: string, stream: ProgressStream, now: () => number): Progress {
  let said = now();
  return {
    update(done, total) {
      if (now() - said < progressLineIntervalMs) return;
      said = now();
      stream.write(`${label}: height ${done} of ${total}\n`);
    },
    finish() {},
  };
}

function terminalProgress(label: string, stream: ProgressStream, now: () => number): Progress {
  const intervalMs = 1000 / progressRedrawsPerSecondMax;
  let first: { readonly at: number; readonly done: number } | null = null;
  let drawnAt: number | null = null;
  return {
    update(done, total) {
      const at = now();
      first ??= { at, done };
      if (drawnAt !== null && at - drawnAt < intervalMs) return;
      drawnAt = at;
      const rate = at > first.at ? ((done - first.done) * 1000) / (at - first.at) : null;
      const columns = stream.columns !== undefined && stream.columns > 0 ? stream.columns : defaultColumns;
      stream.write(`\r${progressLine(label, done, total, rate, columns)}\x1b[K`);
    },
    finish() {
      if (drawnAt !== null) stream.write("\r\x1b[K");
    },
  };
}

/**
 * One bar's text, at most `columns - 1` wide (a full last column makes some terminals wrap):
 * `export [#######.......] 1200/5000  24%  310/s  0:12 left`. `rate` is per second, or null
 * before a second reading.
 */
export function progressLine(label: string, done: number, total: number, rate: number | null, columns: number): string {
  const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const left = rate !== null && rate > 0 ? `  ${duration((total - done) / rate)} left` : "";
  const figures = `${done}/${total}  ${Math.floor(fraction * 100)}%${rate === null ? "" : `  ${Math.round(rate)}/s`}${left}`;
  const room = columns - 1 - label.length - figures.length - 4;
  const width = Math.min(progressBarCharsMax, room);
  const bar = width >= progressBarCharsMin ? ` [${"#".repeat(Math.round(fraction * width)).padEnd(width, ".")}]` : "";
  return `${label}${bar} ${figures}`.slice(0, Math.max(0, columns - 1));
}

/** Seconds as `m:ss`, or `h:mm:ss` from an hour. */
function duration(seconds: number): string {
  const whole = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
