// A testnet's plan (DIR/testnet.json): its chain, the CometBFT binary, and each node's folders,
// addresses and role. Written by testnet.ts (and grown by addNode.ts), read by processes.ts.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const manifestName = "testnet.json";

export interface TestnetNode {
  readonly name: string;
  /** CometBFT's home, relative to the testnet folder. */
  readonly home: string;
  /** ledgerd's data_dir, relative to the testnet folder. */
  readonly dataDir: string;
  readonly nodeId: string;
  readonly http: string;
  readonly ws: string;
  readonly abci: string;
  readonly rpc: string;
  readonly p2p: string;
  /**
   * False for a full node: it holds and serves the whole ledger, but is not in the validator set
   * (it signs no blocks, and its key signs no legacy CREATE). Absent in a manifest made before
   * full nodes: a validator.
   */
  readonly validator?: boolean;
}

export interface TestnetManifest {
  readonly chainId: string;
  /** The CometBFT binary the network was made with and is run with. */
  readonly cometbft: string;
  readonly nodes: readonly TestnetNode[];
}

export function readManifest(dir: string): TestnetManifest {
  const path = join(resolve(dir), manifestName);
  if (!existsSync(path)) throw new Error(`${path} not found: make the testnet first (ledgerd testnet --validators N --dir DIR)`);
  return JSON.parse(readFileSync(path, "utf8")) as TestnetManifest;
}
