import type { ConfigProblem } from "./configError.js";
import { listenAddresses } from "./listenAddresses.js";
import { parseHostPort } from "./parseHostPort.js";
import type { Config } from "./schema.js";

/**
 * What the schema cannot say, since it looks at one value at a time: settings that are each
 * valid but cannot work together, and the unsafe one that needs its acknowledgement. Run on a
 * config the schema accepted. `sourceOf` names where a key's value came from.
 */
export function settingsThatCannotWork(config: Config, sourceOf: (key: string) => string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (key: string, reason: string): void => {
    problems.push({ key, reason, source: sourceOf(key) });
  };
  // Without a sync, a block acknowledged as committed can be lost on power loss, and SQLite's
  // file can be damaged (https://sqlite.org/pragma.html#pragma_synchronous): only on request.
  if (config.database.synchronous === "off" && !config.database.synchronous_off_acknowledged) {
    const reason =
      'is "off": committed blocks can be lost, and the database damaged, on power loss or an OS crash; ' +
      "set database.synchronous_off_acknowledged to true to run so anyway";
    problem("database.synchronous", reason);
  }
  // CometBFT runs beside the cometbft engine only: with solo it would be started for nothing.
  if (config.engine.cometbft_home !== "" && config.engine.kind !== "cometbft") {
    problem("engine.cometbft_home", `is set, but engine.kind is ${config.engine.kind}: CometBFT runs only with engine.kind cometbft`);
  }
  // The solo engine keeps no block store of its own to prune: the setting would do nothing.
  if (config.engine.retain_blocks !== 0 && config.engine.kind !== "cometbft") {
    problem("engine.retain_blocks", `is ${config.engine.retain_blocks}, but engine.kind is ${config.engine.kind}: only CometBFT's block store is pruned`);
  }
  // A PostgreSQL URL with the SQLite backend would be ignored: the node would not use the
  // database the operator named.
  if (config.database.url !== "" && config.database.backend !== "postgres") {
    problem("database.url", `is set, but database.backend is ${config.database.backend}: the URL is read only with database.backend postgres`);
  }
  // Two listeners on one address: the second could never bind.
  const binds = listenAddresses(config);
  for (let i = 0; i < binds.length; i++) {
    for (let j = 0; j < i; j++) {
      const { key, text } = binds[i]!;
      const { key: otherKey, text: otherText } = binds[j]!;
      if (sameAddress(text, otherText)) problem(key, `is ${otherKey}'s address too (${text})`);
    }
  }
  return problems;
}

/** The same port (not 0, which is any free one) on the same host name as written. */
function sameAddress(a: string, b: string): boolean {
  const left = parseHostPort(a);
  const right = parseHostPort(b);
  if (left === null || right === null || left.port === 0) return false;
  return left.port === right.port && left.host.toLowerCase() === right.host.toLowerCase();
}
