// `ledgerd` knowing one more rule change, a toy one, for ruleHeight.test.ts: the rule moves the
// protocol version to 2 at the height a genesis names for it, and does nothing else. Run as a
// testnet node's ledgerd entry (`node --import tsx toyRuleLedgerd.ts start ...`): the node's own
// process runs the ledger, so it knows the rule (its HTTP workers neither know nor need it).
import { protocolVersion, registerRuleChange } from "../../../src/ledger/protocol.js";

export const toyRule = { name: "toy_version_two", protocolVersion: protocolVersion + 1n } as const;

registerRuleChange(toyRule);
await import("../../../src/cli/main.js");
