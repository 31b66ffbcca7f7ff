// An output's condition drawn as the tree it is: Ed25519 keys at the leaves, "k of n"
// thresholds above them (crypto-conditions, threshold-sha-256). A node of another type, or one
// nested past `conditionDepthMax`, is shown as its JSON.
import { conditionDepthMax } from "./limits.js";
import { Json, KeyLink } from "./ui.js";
import { isConditionDetails } from "./wire.js";

function ConditionNode({ details, depth }: { details: unknown; depth: number }) {
  if (!isConditionDetails(details) || depth > conditionDepthMax) return <Json value={details} label="Condition (JSON)" />;
  if (details.type === "ed25519-sha-256" && typeof details.public_key === "string") {
    return (
      <span class="leaf">
        signature of <KeyLink publicKey={details.public_key} />
      </span>
    );
  }
  if (details.type === "threshold-sha-256" && Array.isArray(details.subconditions)) {
    const subs = details.subconditions;
    return (
      <>
        <span class="gate">
          {String(details.threshold)} of {subs.length}
        </span>
        <ul>
          {subs.map((sub, i) => (
            <li key={i}>
              <ConditionNode details={sub} depth={depth + 1} />
            </li>
          ))}
        </ul>
      </>
    );
  }
  return (
    <>
      <span class="gate">{details.type}</span>
      <Json value={details} label={`Condition ${details.type} (JSON)`} />
    </>
  );
}

export function ConditionTree({ details }: { details: unknown }) {
  return (
    <ul class="tree" aria-label="Condition">
      <li>
        <ConditionNode details={details} depth={0} />
      </li>
    </ul>
  );
}
