// A v2.0 transaction, drawn: what it spends (inputs), what it makes (outputs, with their
// conditions as trees), its asset and its metadata. The raw JSON is always one click away.
import { fulfillmentShownChars } from "./limits.js";
import { ConditionTree } from "./ConditionTree.js";
import { AssetLink, BlockLink, Json, KeyLink, Section, TxLink } from "./ui.js";
import { assetIdOf, type Input, type Output, type Transaction } from "./wire.js";

function Keys({ keys }: { keys: readonly string[] }) {
  if (keys.length === 0) return <span>none</span>;
  return (
    <ul class="inline">
      {keys.map((k) => (
        <li key={k}>
          <KeyLink publicKey={k} />
        </li>
      ))}
    </ul>
  );
}

function fulfillmentText(fulfillment: unknown): string {
  const text = typeof fulfillment === "string" ? fulfillment : JSON.stringify(fulfillment);
  return text.length > fulfillmentShownChars ? `${text.slice(0, fulfillmentShownChars)}…` : text;
}

function InputItem({ input }: { input: Input }) {
  return (
    <li class="item">
      <dl class="facts">
        <dt>Spends</dt>
        <dd>
          {input.fulfills === null ? (
            "nothing (it creates)"
          ) : (
            <>
              output {input.fulfills.output_index} of <TxLink id={input.fulfills.transaction_id} />
            </>
          )}
        </dd>
        <dt>Signed by</dt>
        <dd>
          <Keys keys={input.owners_before} />
        </dd>
        <dt>Fulfillment</dt>
        <dd>
          <code class="wrap">{fulfillmentText(input.fulfillment)}</code>
        </dd>
      </dl>
    </li>
  );
}

function OutputItem({ output, index }: { output: Output; index: number }) {
  return (
    <li class="item">
      <dl class="facts">
        <dt>Output</dt>
        <dd>{index}</dd>
        <dt>Amount</dt>
        <dd class="amount">{output.amount}</dd>
        <dt>Owners</dt>
        <dd>
          <Keys keys={output.public_keys} />
        </dd>
        <dt>Condition</dt>
        <dd>
          <ConditionTree details={output.condition.details} />
        </dd>
        {output.condition.uri === undefined ? null : (
          <>
            <dt>URI</dt>
            <dd>
              <code class="wrap">{output.condition.uri}</code>
            </dd>
          </>
        )}
      </dl>
    </li>
  );
}

export function TransactionView({ tx, height }: { tx: Transaction; height: number | null }) {
  const assetId = assetIdOf(tx);
  return (
    <>
      <Section title="Summary" id="summary">
        <dl class="facts">
          <dt>Operation</dt>
          <dd>
            <span class="op">{tx.operation}</span>
          </dd>
          <dt>Asset</dt>
          <dd>{assetId === null ? "none" : <AssetLink id={assetId} />}</dd>
          <dt>Block</dt>
          <dd>{height === null ? "unknown" : <BlockLink height={height} />}</dd>
          {tx.version === undefined ? null : (
            <>
              <dt>Version</dt>
              <dd>{tx.version}</dd>
            </>
          )}
        </dl>
      </Section>
      <Section title={`Inputs (${tx.inputs.length})`} id="inputs">
        <ol class="items">
          {tx.inputs.map((input, i) => (
            <InputItem key={i} input={input} />
          ))}
        </ol>
      </Section>
      <Section title={`Outputs (${tx.outputs.length})`} id="outputs">
        <ol class="items">
          {tx.outputs.map((output, i) => (
            <OutputItem key={i} output={output} index={i} />
          ))}
        </ol>
      </Section>
      {tx.operation === "CREATE" || tx.asset?.data !== undefined ? (
        <Section title="Asset data" id="asset-data">
          <Json value={tx.asset?.data ?? null} label="Asset data (JSON)" />
        </Section>
      ) : null}
      <Section title="Metadata" id="metadata">
        {tx.metadata === null || tx.metadata === undefined ? <p>None.</p> : <Json value={tx.metadata} label="Metadata (JSON)" />}
      </Section>
    </>
  );
}
