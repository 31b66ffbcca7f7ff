// `ledgerd election new upsert-validator | approve | show`: BigchainDB's `bigchaindb election`
// commands (README.md, "Changing the validator set"); src/tools/electionClient.ts does
// the work against the node's HTTP API, signing with the node's key.
import { Option, type Command } from "commander";
import { apiBase, approveElection, newUpsertValidatorElection, showElection, type ElectionNode } from "../tools/electionClient.js";
import { loadSettings } from "./commands.js";
import { addSettingOptions, settingFlags } from "./settingOptions.js";

/** What the election commands read of the node's settings: where its key is; server.bind by default for --url. */
const electionSettings = ["data_dir"] as const;

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
  withElectionOptions(
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
    const id = await newUpsertValidatorElection(electionNode(options), {
      publicKey: options.publicKey,
      power,
      nodeId: options.nodeId,
    });
    console.log(`[SUCCESS] Submitted proposal with id: ${id}`);
  });
  withElectionOptions(
    election.command("approve").description("Vote for an election with this node's voting power").argument("<election_id>"),
  ).action(async (electionId: string, options: Record<string, unknown>) => {
    const id = await approveElection(electionNode(options), electionId);
    console.log(`[SUCCESS] Your vote has been submitted: ${id}`);
  });
  withElectionOptions(
    election.command("show").description("Print an election: what it proposes, its votes and status").argument("<election_id>"),
  ).action(async (electionId: string, options: Record<string, unknown>) => {
    const url = options["url"];
    const election = await showElection(typeof url === "string" ? checkedUrl(url) : electionNode(options).api, electionId);
    for (const [key, value] of Object.entries(election)) {
      console.log(`${key}=${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`);
    }
  });
}

/** `--data_dir`, `--config` and `--url`: all an election command uses (not the node's fifty settings). */
function withElectionOptions(command: Command): Command {
  return addSettingOptions(command, electionSettings).addOption(
    new Option("--url <URL>", "the node's HTTP API, e.g. http://10.0.0.1:9984 (default: the node's server.bind, from its settings)"),
  );
}

function electionNode(options: Readonly<Record<string, unknown>>): ElectionNode {
  const config = loadSettings(settingFlags(options));
  const url = options["url"];
  return { dataDir: config.data_dir, api: typeof url === "string" ? checkedUrl(url) : apiBase(config) };
}

/** An http(s) URL, without the trailing slash the API paths add. */
function checkedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--url must be a URL such as http://127.0.0.1:9984: ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`--url must be http:// or https://: ${text}`);
  return text.replace(/\/+$/, "");
}
