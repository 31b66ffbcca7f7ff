// `ledgerd doctor`: checks a node's set-up from outside, the way an operator would, and says
// for each failure what to do. It opens nothing of the node's (the store belongs to the running
// node): it reads the config and the node key, and asks ledgerd's HTTP API and CometBFT's RPC.
import type { Config } from "../config/schema.js";
import { supportedCometBftVersion } from "../engine/cometbft/supportedVersion.js";
import { readNodeKey } from "../node/nodeKey.js";

export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  /** What was found. */
  readonly detail: string;
  /** On a failure: what to do about it. */
  readonly fix?: string;
}

/** GETs a URL's JSON; throws on no answer or a non-200. */
export type FetchJson = (url: string) => Promise<unknown>;

/** How long one question may take before the check fails. */
export const doctorTimeoutMs = 3_000;

export const fetchJson: FetchJson = async (url) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(doctorTimeoutMs) });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return response.json();
};

const pass = (name: string, detail: string): DoctorCheck => ({ name, ok: true, detail });
const fail = (name: string, detail: string, fix: string): DoctorCheck => ({ name, ok: false, detail, fix });
const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Every check, in the order an operator would look. */
export async function runDoctor(config: Config, fetch: FetchJson = fetchJson, now: () => number = Date.now): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [nodeKeyCheck(config)];
  checks.push(await apiCheck(config, fetch));
  if (config.engine.kind !== "cometbft") {
    checks.push(pass("engine", "solo: the node makes its own blocks; nothing of CometBFT to check"));
    return checks;
  }
  let status: CometStatus;
  try {
    status = (await fetch(`${config.engine.rpc_url}/status`)) as CometStatus;
  } catch (error) {
    checks.push(fail("CometBFT RPC", `${config.engine.rpc_url} does not answer (${reason(error)})`,
      "start CometBFT (after ledgerd), and check engine.rpc_url against its [rpc] laddr"));
    return checks;
  }
  checks.push(pass("CometBFT RPC", `${config.engine.rpc_url} answers`));
  checks.push(...cometChecks(config, status.result));
  checks.push(clockCheck(status.result, now(), await latestPrecommits(config, fetch)));
  checks.push(await abciCheck(config, fetch));
  checks.push(await peersCheck(config, fetch, status.result));
  return checks;
}

interface CometStatus {
  readonly result: {
    readonly node_info: { readonly version: string; readonly network: string };
    readonly sync_info: { readonly catching_up: boolean; readonly latest_block_height: string; readonly latest_block_time?: string };
    readonly validator_info: { readonly address: string; readonly pub_key: { readonly value: string }; readonly voting_power: string };
  };
}

/** A precommit in CometBFT's latest commit (RPC `commit`): who signed, when by its own clock. */
interface Precommit {
  readonly block_id_flag: number;
  readonly validator_address: string;
  readonly timestamp: string;
}

/** CometBFT's BlockIDFlagAbsent: no precommit of that validator, its timestamp is zero. */
const blockIdFlagAbsent = 1;

/** The precommits of the latest commit; none when CometBFT does not tell (the clock check is then about blocks only). */
async function latestPrecommits(config: Config, fetch: FetchJson): Promise<readonly Precommit[]> {
  try {
    const commit = (await fetch(`${config.engine.rpc_url}/commit`)) as { result: { signed_header: { commit: { signatures: Precommit[] } } } };
    return commit.result.signed_header.commit.signatures.filter((p) => p.block_id_flag !== blockIdFlagAbsent);
  } catch {
    return [];
  }
}

function nodeKeyCheck(config: Config): DoctorCheck {
  try {
    const key = readNodeKey(config.data_dir);
    if (key === null) return fail("node key", `no node key in ${config.data_dir}`, "run `ledgerd init` (with --validator-key for a validator)");
    return pass("node key", `${key.publicKey} (${key.path})`);
  } catch (error) {
    return fail("node key", reason(error), "restore the node key file from its backup, or make a new one with `ledgerd init`");
  }
}

async function apiCheck(config: Config, fetch: FetchJson): Promise<DoctorCheck> {
  const url = `http://${config.server.bind}/readyz`;
  try {
    const ready = (await fetch(url)) as { ready: boolean };
    return pass("ledgerd API", `${url}: ready ${String(ready.ready)}`);
  } catch (error) {
    return fail("ledgerd API", `${url}: ${reason(error)}`, "start the node (`ledgerd start`); if it runs, read its log for why it is not ready");
  }
}

function cometChecks(config: Config, status: CometStatus["result"]): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const version = status.node_info.version;
  checks.push(version === supportedCometBftVersion
    ? pass("CometBFT version", version)
    : fail("CometBFT version", `${version}, but ledgerd speaks to ${supportedCometBftVersion} only`, `install CometBFT ${supportedCometBftVersion} (scripts/install-cometbft.sh)`));
  const network = status.node_info.network;
  checks.push(network === config.engine.chain_id
    ? pass("chain id", network)
    : fail("chain id", `CometBFT runs chain ${network}, ledgerd is set for ${config.engine.chain_id}`, "make engine.chain_id the genesis chain_id of the network"));
  checks.push(validatorCheck(config, status));
  checks.push(status.sync_info.catching_up
    ? fail("sync", `catching up (at height ${status.sync_info.latest_block_height})`, "wait: the node takes no transaction until it has every block")
    : pass("sync", `in step, at height ${status.sync_info.latest_block_height}`));
  return checks;
}

/** How far ahead of this machine's clock a block's time may be before it is called skew. */
export const clockSkewToleranceMs = 2_000;

/**
 * A block's time is the median of the validators' clocks when they voted for it (CometBFT's
 * BFT time), so it is never ahead of a right clock: a block time ahead of ours says this
 * machine's clock is behind the network's. Behind ours says nothing (the block may be old); a
 * clock ahead shows in a validator's own precommit, stamped ahead of the other validators' for
 * the same block (the median leaves it out of block times, so nothing else shows it).
 */
function clockCheck(status: CometStatus["result"], nowMs: number, precommits: readonly Precommit[]): DoctorCheck {
  const text = status.sync_info.latest_block_time;
  const blockMs = text === undefined ? NaN : Date.parse(text);
  if (Number.isNaN(blockMs) || Number(status.sync_info.latest_block_height) === 0) {
    return pass("clock", "no block yet to compare this machine's clock with");
  }
  const aheadMs = blockMs - nowMs;
  if (aheadMs > clockSkewToleranceMs) {
    return fail("clock", `the latest block's time is ${(aheadMs / 1000).toFixed(1)} s ahead of this machine's clock`,
      // CometBFT's block_time_tolerance (60 s by default) stops a validator further behind.
      "this machine's clock is behind the network's: synchronise it (NTP, e.g. systemd-timesyncd or chrony) before it is a minute behind, when CometBFT refuses the network's blocks");
  }
  const voteAheadMs = ownPrecommitAheadMs(status.validator_info.address, precommits);
  if (voteAheadMs > clockSkewToleranceMs) {
    return fail("clock", `this validator's last precommit is stamped ${(voteAheadMs / 1000).toFixed(1)} s ahead of the other validators'`,
      "this machine's clock is ahead of the network's: synchronise it (NTP, e.g. systemd-timesyncd or chrony)");
  }
  return pass("clock", "no block time ahead of this machine's clock, no precommit of ours ahead of the others'");
}

/** How far our precommit's timestamp is past the median of the others' in one commit; 0 if not comparable. */
function ownPrecommitAheadMs(address: string, precommits: readonly Precommit[]): number {
  const ours = precommits.find((p) => p.validator_address === address);
  const others = precommits.filter((p) => p !== ours).map((p) => Date.parse(p.timestamp)).sort((a, b) => a - b);
  if (ours === undefined || others.length === 0) return 0;
  return Date.parse(ours.timestamp) - others[Math.floor(others.length / 2)]!;
}

/** A validator's ledgerd must hold the validator's key: it signs the legacy CREATEs with it. */
function validatorCheck(config: Config, status: CometStatus["result"]): DoctorCheck {
  const power = Number(status.validator_info.voting_power);
  const cometKey = Buffer.from(status.validator_info.pub_key.value, "base64").toString("hex");
  let ours: string | null = null;
  try {
    ours = readNodeKey(config.data_dir)?.publicKeyHex ?? null;
  } catch {
    // Reported by the node key check.
  }
  if (power === 0) return pass("validator key", "a full node (no voting power): it signs no blocks and no legacy CREATE");
  if (ours === cometKey) return pass("validator key", `a validator with power ${power}, and ledgerd holds its key`);
  return fail("validator key", `CometBFT's validator key ${cometKey} is not ledgerd's node key ${ours ?? "(none)"}`,
    "make ledgerd's key the validator's: `ledgerd init --validator-key <priv_validator_key.json>` on a new data folder");
}

async function abciCheck(config: Config, fetch: FetchJson): Promise<DoctorCheck> {
  try {
    const info = (await fetch(`${config.engine.rpc_url}/abci_info`)) as { result: { response: { last_block_height?: string } } };
    return pass("ABCI", `CometBFT reaches ledgerd at ${config.engine.abci_bind}; the ledger is at height ${info.result.response.last_block_height ?? "0"}`);
  } catch (error) {
    return fail("ABCI", reason(error), "CometBFT's proxy_app must be ledgerd's engine.abci_bind, and ledgerd must start first");
  }
}

async function peersCheck(config: Config, fetch: FetchJson, status: CometStatus["result"]): Promise<DoctorCheck> {
  try {
    const net = (await fetch(`${config.engine.rpc_url}/net_info`)) as { result: { n_peers: string } };
    const peers = Number(net.result.n_peers);
    const validators = (await fetch(`${config.engine.rpc_url}/validators`)) as { result: { total: string } };
    const alone = Number(validators.result.total) === 1 && Number(status.validator_info.voting_power) > 0;
    if (peers > 0 || alone) return pass("peers", alone && peers === 0 ? "the only validator: no peer needed" : `${peers} connected`);
    return fail("peers", "no peer connected", "list the other nodes in config.toml's [p2p] persistent_peers (id@host:26656) and open TCP 26656 between them");
  } catch (error) {
    return fail("peers", reason(error), "check that CometBFT's RPC answers net_info");
  }
}
