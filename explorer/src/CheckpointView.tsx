// The node's signed checkpoint on the home page (checkpointCheck.ts): its origin, size and root,
// the key that signed it, the cosignatures it carries, and whether it is consistent with the
// last one of its log this browser saw. Left out when the node serves no checkpoint
// (BigchainDB, a chain without the history tree).
import { useEffect, useState } from "preact/hooks";
import { checkCheckpoint, type CheckpointCheck, type LastSeen } from "./checkpointCheck.js";
import { Notice, Section, useApi } from "./ui.js";

function lastSeenText(seen: LastSeen): string {
  switch (seen.verdict) {
    case "first":
      return "The first checkpoint of this log this browser sees: kept, to check the next ones against.";
    case "consistent":
      return `Consistent ✓ with the checkpoint of size ${seen.size} this browser saw before.`;
    case "rollback":
      return `Rollback ✗: smaller than the checkpoint of size ${seen.size} this browser saw before.`;
    case "split_view":
      return `Split view ✗: not consistent with the checkpoint of size ${seen.size} this browser saw before.`;
    case "unchecked":
      return `Not checked against the checkpoint of size ${seen.size} seen before: ${seen.reason}`;
  }
}

export function CheckpointView() {
  const api = useApi();
  const [check, setCheck] = useState<CheckpointCheck | null>(null);
  useEffect(() => {
    let live = true;
    void checkCheckpoint(api.base, window.localStorage).then((result) => live && setCheck(result));
    return () => {
      live = false;
    };
  }, [api.base]);
  if (check === null || !check.ok) return null;
  const { checkpoint, cosignatures, lastSeen } = check;
  return (
    <Section title="Checkpoint" id="checkpoint">
      <dl class="facts">
        <dt>Log</dt>
        <dd>{checkpoint.origin}</dd>
        <dt>Size</dt>
        <dd>{checkpoint.size} blocks</dd>
        <dt>Root</dt>
        <dd>
          <code class="wrap">{checkpoint.root}</code>
        </dd>
        <dt>Signed by</dt>
        <dd>
          <code class="wrap">{check.key}</code> ✓
        </dd>
      </dl>
      {cosignatures.length === 0 ? (
        <p>No witness cosigned it.</p>
      ) : (
        <ul aria-label="Cosignatures">
          {cosignatures.map((c) => (
            <li key={`${c.name}+${c.keyId}`}>
              {c.name} (key {c.keyId}){c.time === null ? "" : `, ${new Date(c.time * 1000).toISOString()}`}
            </li>
          ))}
        </ul>
      )}
      <Notice>{lastSeenText(lastSeen)}</Notice>
    </Section>
  );
}
