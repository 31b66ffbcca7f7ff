import { pino, type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "../config/schema.js";

/**
 * The node's logger: pino, one JSON object per line on stdout (STYLE rule 15: structured, e.g.
 * `log.info({ height }, "block committed")`), ISO timestamps so a line reads on its own.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { name: "ledgerd", level, timestamp: pino.stdTimeFunctions.isoTime };
  return destination === undefined ? pino(options) : pino(options, destination);
}
