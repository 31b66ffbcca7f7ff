// `ledgerd election new upsert-validator | approve | show`: BigchainDB's `bigchaindb election`
// commands (README.md, "Changing the validator set"); src/node/electionClient.ts does
// the work against the node's HTTP API, signing with the node's key.
import type { Command } from "commander";
import { approveElection, newUpsertValidatorElection, showElection } from "../node/electionClient.js";
import { loadSettings } from "./commands.js";
import { addSettingOptions, settingFlags } from "./settingOptions.js";

interface NewFlags {
  publicKey: string;
  power: string;
  nodeId: string;
}

/** Registers `ledgerd election` and its subcommands. */
export function registerElectionCommand(program: Command): void {
  const election = program
    .command("election")
    .description("Change the validator set of a CometBFT network by election (BigchainDB's upsert-validator)");
  addSettingOptions(
    election
      .command("new")
      .description("Propose a validator change, signed with this node's key (a current validator's)")
      .argument("<type>", "the election type: upsert-validator")
      .requiredOption("--public-key <BASE64>", "the validator's Ed25519 key, base64 (pub_key.value of its priv_validator_key.json)")
      .requiredOption("--power <N>", "its new voting power; 0 removes it")
      .requiredOption("--node-id <ID>", "its CometBFT node id"),
  ).action(async (type: string, options: NewFlags & Record<string, unknown>) => {
    if (type !== "upsert-validator") {
      throw new Error(`unknown election type ${type}: ledgerd has upsert-validator (chain-migration is not supported, docs/compatibility.md #11)`);
    }
    const power = Number(options.power);
    if (!/^[0-9]+$/.test(options.power) || !Number.isSafeInteger(power)) throw new Error(`--power must be a whole number: ${options.power}`);
    const id = await newUpsertValidatorElection(loadSettings(settingFlags(options)), {
      publicKey: options.publicKey,
      power,
      nodeId: options.nodeId,
    });
    console.log(`[SUCCESS] Submitted proposal with id: ${id}`);
  });
  addSettingOptions(
    election.command("approve").description("Vote for an election with this node's voting power").argument("<election_id>"),
  ).action(async (electionId: string, options: Record<string, unknown>) => {
    const id = await approveElection(loadSettings(settingFlags(options)), electionId);
    console.log(`[SUCCESS] Your vote has been submitted: ${id}`);
  });
  addSettingOptions(
    election.command("show").description("Print an election: what it proposes, its votes and status").argument("<election_id>"),
  ).action(async (electionId: string, options: Record<string, unknown>) => {
    const election = await showElection(loadSettings(settingFlags(options)), electionId);
    for (const [key, value] of Object.entries(election)) {
      console.log(`${key}=${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`);
    }
  });
}
