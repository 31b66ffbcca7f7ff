// `ledgerd network init | genesis | join`: a network of machines formed by commands
// (src/testnet/networkSetup.ts does the work).
import { hostname } from "node:os";
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { parseHostPort } from "../config/parseHostPort.js";
import { networkGenesis, networkInit, networkJoin, type JoinStateSync } from "../testnet/networkSetup.js";
import { fetchTrustPoint } from "../testnet/trustPoint.js";
import { defaultCometBftBinary } from "../testnet/testnet.js";

interface InitFlags {
  dir: string;
  moniker: string;
  p2p: string;
  p2pListen: string;
  rpc: string;
  abci: string;
  http: string;
  ws: string;
  power: string;
  cometbft?: string;
  loopback?: boolean;
}

/** Registers `ledgerd network` and its subcommands. */
export function registerNetworkCommand(program: Command): void {
  const network = program.command("network").description("Form a network of machines: init on each, genesis on one, join on each");
  network
    .command("init")
    .description("Make this machine's CometBFT home and ledgerd data folder, and the part.json to share")
    .requiredOption("--dir <DIR>", "folder for this machine's node (cometbft/, ledgerd/, part.json)")
    .requiredOption("--p2p <HOST:PORT>", "the address the other machines dial (CometBFT P2P)")
    .addOption(new Option("--moniker <NAME>", "this node's name").default(hostname()))
    .addOption(new Option("--p2p-listen <HOST:PORT>", "where CometBFT's P2P listens").default("0.0.0.0:26656"))
    .addOption(new Option("--rpc <HOST:PORT>", "CometBFT's RPC (keep it on loopback)").default("127.0.0.1:26657"))
    .addOption(new Option("--abci <HOST:PORT>", "ledgerd's ABCI server (keep it on loopback)").default("127.0.0.1:26658"))
    .addOption(new Option("--http <HOST:PORT>", "ledgerd's HTTP API").default("0.0.0.0:9984"))
    .addOption(new Option("--ws <HOST:PORT>", "ledgerd's event stream").default("0.0.0.0:9985"))
    .addOption(new Option("--power <N>", "this validator's voting power").default("10"))
    .option("--cometbft <PATH>", "the CometBFT binary (default: .cache/bin/cometbft, else cometbft on PATH)")
    .option("--loopback", "every machine on one address (trying it on one computer)")
    .action((flags: InitFlags) => {
      const addresses = { "--p2p": flags.p2p, "--p2p-listen": flags.p2pListen, "--rpc": flags.rpc, "--abci": flags.abci, "--http": flags.http, "--ws": flags.ws };
      for (const [flag, text] of Object.entries(addresses)) {
        if (parseHostPort(text) === null) throw new Error(`${flag} must be HOST:PORT (or [IPv6]:PORT): ${text}`);
      }
      const power = Number(flags.power);
      if (!Number.isSafeInteger(power) || power < 1) throw new Error(`--power must be a whole number of at least 1: ${flags.power}`);
      const part = networkInit({
        dir: flags.dir,
        cometbft: flags.cometbft ?? defaultCometBftBinary(),
        moniker: flags.moniker,
        p2pExternal: flags.p2p,
        p2pListen: flags.p2pListen,
        rpc: flags.rpc,
        abci: flags.abci,
        http: flags.http,
        ws: flags.ws,
        power,
        loopback: flags.loopback === true,
      });
      console.log(`made ${part.moniker} (node ${part.node_id}) in ${resolve(flags.dir)}`);
      console.log(`send ${resolve(flags.dir, "part.json")} to whoever runs \`ledgerd network genesis\``);
    });
  network
    .command("genesis")
    .description("Join the validators' part.json files into genesis.json and peers.json")
    .requiredOption("--chain-id <ID>", "the network's chain id")
    .requiredOption("--out <DIR>", "where genesis.json and peers.json go")
    .argument("<part...>", "every validator's part.json")
    .action((parts: string[], flags: { chainId: string; out: string }) => {
      const written = networkGenesis(flags.chainId, parts, flags.out);
      console.log(`wrote ${written.genesis} and ${written.peers}: copy both to every machine, then run \`ledgerd network join\` there`);
    });
  network
    .command("join")
    .description("Import the network's genesis.json and peers.json into this machine's node")
    .requiredOption("--dir <DIR>", "this machine's node folder (from network init)")
    .requiredOption("--genesis <FILE>", "the network's genesis.json")
    .requiredOption("--peers <FILE>", "the network's peers.json")
    .option("--state-sync <HOST:PORT[,HOST:PORT]>", "join by state sync: restore a peer's snapshot, trusting the latest block of the first CometBFT RPC named (the light client reads headers from these)")
    .action(async (flags: { dir: string; genesis: string; peers: string; stateSync?: string }) => {
      const stateSync = flags.stateSync === undefined ? undefined : await joinStateSync(flags.stateSync);
      const joined = networkJoin(flags.dir, flags.genesis, flags.peers, stateSync);
      const dir = resolve(flags.dir);
      if (stateSync !== undefined) console.log(`state sync on: trusting block ${stateSync.trust.height} (${stateSync.trust.hash}) of ${stateSync.rpcServers[0]}`);
      console.log(`${dir} joined chain ${joined.chainId} as ${joined.validator ? "a validator" : "a full node (its key is not in the genesis)"}`);
      console.log(`start it: ledgerd start --data_dir ${dir}/ledgerd (ledgerd runs CometBFT itself, engine.cometbft_home)`);
    });
}

/** `--state-sync`'s RPC servers (one or two `HOST:PORT`) and the block trusted, read from the first. */
async function joinStateSync(text: string): Promise<JoinStateSync> {
  const rpcServers = text.split(",").map((s) => s.trim());
  for (const server of rpcServers) {
    if (parseHostPort(server) === null) throw new Error(`--state-sync must be HOST:PORT[,HOST:PORT]: ${server}`);
  }
  if (rpcServers.length > 2) throw new Error("--state-sync names one or two CometBFT RPCs");
  return { rpcServers, trust: await fetchTrustPoint(rpcServers[0]!) };
}
