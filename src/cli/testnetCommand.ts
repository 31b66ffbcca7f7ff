// `ledgerd testnet ...`: the command line of the loopback testnet (src/testnet/testnet.ts makes
// and runs it, src/testnet/addNode.ts grows it).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Option, type Command } from "commander";
import { addTestnetNode } from "../testnet/addNode.js";
import { readManifest, type TestnetNode } from "../testnet/manifest.js";
import {
  basePortDefault,
  createTestnet,
  portStride,
  startTestnet,
  stopTestnet,
  testnetChainIdDefault,
  threadsDefault,
  timeoutCommitMsDefault,
  type CreateTestnetOptions,
  type NodeSelection,
} from "../testnet/testnet.js";
import { fetchTrustPoint } from "../testnet/trustPoint.js";

/** Registers `ledgerd testnet` and its `start`, `stop` and `add-node` subcommands. */
export function registerTestnetCommand(program: Command): void {
  const testnet = program
    .command("testnet")
    .description("Write a network of N CometBFT validators, each driving a ledgerd, on loopback ports")
    .option("--validators <N>", "how many validators", parseCount)
    .option("--full-nodes <N>", "how many full nodes besides: they hold and serve the ledger but do not vote", parseCount)
    .option("--dir <DIR>", "folder for the network (must not hold one yet)")
    .addOption(new Option("--base-port <PORT>", `node i uses ports PORT+${portStride}i .. PORT+${portStride}i+4 (HTTP, WS, ABCI, RPC, P2P)`).default(basePortDefault).argParser(parseCount))
    .option("--chain-id <ID>", "the genesis chain id", testnetChainIdDefault)
    .option("--cometbft <PATH>", "the CometBFT binary (default: .cache/bin/cometbft, else cometbft on PATH)")
    .addOption(new Option("--timeout-commit <MS>", "CometBFT's consensus.timeout_commit").default(timeoutCommitMsDefault).argParser(parseCount))
    .addOption(new Option("--threads <N>", "each ledgerd's server.threads").default(threadsDefault).argParser(parseCount))
    .option(
      "--no-read-indexes",
      "validators without read indexes (database.read_indexes = false: no searches or queries by field on them); full nodes keep theirs",
    )
    .action((options: { validators?: number; fullNodes?: number; dir?: string; basePort: number; chainId: string; cometbft?: string; timeoutCommit: number; threads: number; readIndexes: boolean }) => {
      if (options.validators === undefined || options.dir === undefined) {
        throw new Error("testnet needs --validators N and --dir DIR (or a subcommand: start, stop)");
      }
      const create: CreateTestnetOptions = {
        validators: options.validators,
        ...(options.fullNodes === undefined ? {} : { fullNodes: options.fullNodes }),
        dir: options.dir,
        basePort: options.basePort,
        chainId: options.chainId,
        timeoutCommitMs: options.timeoutCommit,
        threads: options.threads,
        readIndexes: options.readIndexes,
        ...(options.cometbft === undefined ? {} : { cometbft: options.cometbft }),
      };
      const manifest = createTestnet(create);
      const full = manifest.nodes.filter((node) => node.validator === false).length;
      const kinds = `${manifest.nodes.length - full} validator(s)${full > 0 ? ` and ${full} full node(s)` : ""}`;
      console.log(`wrote a testnet of ${kinds} (chain ${manifest.chainId}) in ${resolve(options.dir)}`);
      for (const node of manifest.nodes) {
        console.log(`  ${node.name}${node.validator === false ? " (full node)" : ""}: HTTP http://${node.http}  RPC http://${node.rpc}  P2P ${node.nodeId}@${node.p2p}`);
      }
      console.log(`start it with: ledgerd testnet start --dir ${options.dir}`);
    });
  const lifecycle = [
    { name: "start", description: "Start every node (or --node I): ledgerd, then CometBFT; waits until they answer", run: startTestnet, state: "running" },
    { name: "stop", description: "Stop every node (or --node I): CometBFT, then ledgerd", run: stopTestnet, state: "stopped" },
  ] as const;
  for (const { name, description, run, state } of lifecycle) {
    testnet
      .command(name)
      .description(description)
      .option("--dir <DIR>", "the testnet's folder")
      .option("--node <I...>", "only these node indexes")
      .action(async (options: { dir?: string; node?: string[] }, command: Command) => {
        const dir = dirOf(options, command);
        await run(dir, selection(options.node));
        console.log(`testnet in ${resolve(dir)} is ${state}`);
      });
  }
  testnet
    .command("add-node")
    .description("Add a full node to the testnet (running or not); start it with testnet start --node I")
    .option("--dir <DIR>", "the testnet's folder")
    .option("--state-sync", "join by state sync: restore a peer's snapshot (the network must be running and have one), then replay the blocks after it")
    .action(async (options: { dir?: string; stateSync?: boolean }, command: Command) => {
      const dir = dirOf(options, command);
      const first = readManifest(resolve(dir)).nodes[0];
      const stateSync = options.stateSync === true && first !== undefined ? await fetchTrustPoint(first.rpc) : undefined;
      const { node, index } = addTestnetNode(dir, stateSync === undefined ? {} : { stateSync });
      console.log(`added ${node.name} (full node): HTTP http://${node.http}  RPC http://${node.rpc}  P2P ${node.nodeId}@${node.p2p}`);
      const how = stateSync === undefined ? "it syncs every block from its peers" : `it restores a peer's snapshot (trusting block ${stateSync.height}, ${stateSync.hash}), then syncs the blocks after it`;
      console.log(`start it with: ledgerd testnet start --dir ${dir} --node ${index}; ${how}`);
      console.log(`then make it a validator (power 1: a change must be less than 1/3 of the total, and each testnet validator has 1):`);
      console.log(`  ${electNodeCommand(dir, node)}`);
    });
}

/** The `election new` that makes a testnet's node a validator, proposed by its first validator. */
function electNodeCommand(dir: string, node: TestnetNode): string {
  const root = resolve(dir);
  const proposer = readManifest(root).nodes.find((n) => n.validator !== false);
  if (proposer === undefined) throw new Error(`${root} holds a testnet without validators`);
  const keyFile = JSON.parse(readFileSync(join(root, node.home, "config", "priv_validator_key.json"), "utf8")) as { pub_key: { value: string } };
  const args = ["--public-key", keyFile.pub_key.value, "--power", "1", "--node-id", node.nodeId, "--data_dir", join(dir, proposer.dataDir)];
  return `ledgerd election new upsert-validator ${args.join(" ")}`;
}

/** `testnet` itself has a `--dir` too, and commander gives it the flag wherever it stands. */
function dirOf(options: { dir?: string }, command: Command): string {
  const dir = options.dir ?? (command.parent?.opts() as { dir?: string } | undefined)?.dir;
  if (dir === undefined) throw new Error(`testnet ${command.name()} needs --dir DIR`);
  return dir;
}

function selection(nodes: string[] | undefined): NodeSelection {
  return nodes === undefined ? {} : { nodes: nodes.map((n) => parseCount(n)) };
}

function parseCount(text: string): number {
  if (!/^(?:0|[1-9][0-9]*)$/.test(text)) throw new Error(`not a whole number: ${text}`);
  return Number(text);
}
