// The validators a client trusts, read from what it has at hand (docs/proofs.md "The verifier").
// Pure, no IO.
import type { TrustedValidator } from "./cometHeader.js";
import { fromBase64, fromHex } from "./encoding.js";

/**
 * The validators to trust, from what a client has at hand: the list `GET /api/v1/validators`
 * answers (`pub_key.data` hex), a CometBFT genesis or its `validators` (`pub_key.value` base64),
 * or `/validators` of CometBFT's RPC (`result.validators`, `voting_power`). Throws on anything else.
 */
export function trustedValidatorsOf(source: unknown): TrustedValidator[] {
  const holder = source as { validators?: unknown; result?: { validators?: unknown } } | null;
  const list = Array.isArray(source) ? source : (holder?.result?.validators ?? holder?.validators);
  if (!Array.isArray(list) || list.length === 0) throw new Error("no validator list: give GET /api/v1/validators's answer, a genesis, or CometBFT's /validators");
  return list.map((entry: { pub_key?: { data?: unknown; value?: unknown }; power?: unknown; voting_power?: unknown }, i) => {
    const data = entry.pub_key?.data;
    const value = entry.pub_key?.value;
    const key = typeof data === "string" ? fromHex(data) : typeof value === "string" ? fromBase64(value) : null;
    const power = entry.power ?? entry.voting_power;
    if (key === null || key.length !== 32) throw new Error(`validator ${i}: pub_key is not a 32-byte Ed25519 key`);
    if (!(typeof power === "number" || typeof power === "string") || !/^[0-9]+$/.test(String(power))) throw new Error(`validator ${i}: power is not a whole number`);
    return { publicKey: key, power: BigInt(power) };
  });
}
