/**
 * The node cannot start for a reason of the machine, not of the code: the data directory is in
 * use or cannot be written, a port is taken. Its message is the one line the user needs; no
 * stack is logged with it (`ledgerd start` logs it as the reason, see src/cli/commands.ts).
 */
export class StartRefused extends Error {
  override readonly name = "StartRefused";

  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}
