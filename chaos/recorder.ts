// The run's history as it happens (chaos/history.ts's events), timed by one monotonic clock from
// the run's start.
import { performance } from "node:perf_hooks";
import type { HistoryEvent } from "./history.js";

export class Recorder {
  readonly events: HistoryEvent[] = [];
  private readonly startedAt = performance.now();

  /** Milliseconds since the run's start. */
  now(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  add(event: HistoryEvent): void {
    this.events.push(event);
  }

  /** One JSON object a line, ordered by start time. */
  jsonLines(): string {
    const sorted = [...this.events].sort((a, b) => a.atMs - b.atMs);
    return sorted.map((event) => JSON.stringify(event)).join("\n") + "\n";
  }
}
