// `#/asset/<id>`: an asset's data, its whole history as a chain of transfers, and who holds it
// now. The history is read a page at a time (`limit` + `Link: rel="next"`), up to
// `historyPagesMax` pages; past that, the holders are those of the part read, as the page says.
import type { Api } from "./api.js";
import { Pager, type Answer } from "./pager.js";
import { holdersOf } from "./holdersOf.js";
import { historyPageSize, historyPagesMax } from "./limits.js";
import { Failure, Json, KeyLink, Loading, Notice, Section, TxLink, useAnswer, useApi, useTitle } from "./ui.js";
import { isAnything, isConditionDetails, isTransaction, type Output, type Transaction } from "./wire.js";

interface History {
  readonly txs: readonly Transaction[];
  /** Answers of another shape (skipped in the chain, counted). */
  readonly odd: number;
  /** False when `historyPagesMax` pages were read and more followed. */
  readonly complete: boolean;
}

async function loadHistory(api: Api, id: string): Promise<Answer<History>> {
  const read = await new Pager(api.client.transactions(id, undefined, { pageSize: historyPageSize }), isAnything).take(historyPageSize * historyPagesMax);
  if (!read.ok) return read;
  const txs = read.value.items.filter(isTransaction);
  return { ok: true, value: { txs, odd: read.value.items.length - txs.length, complete: !read.value.more } };
}

/** "3 to <key>", or "1 to 2 of <key>, <key>" under a threshold. */
function OutputSummary({ output }: { output: Output }) {
  const details = output.condition.details;
  const gate = isConditionDetails(details) && details.type === "threshold-sha-256" ? `${String(details.threshold)} of ` : "";
  return (
    <span>
      <span class="amount">{output.amount}</span> to {gate}
      {output.public_keys.map((k, i) => (
        <span key={k}>
          {i > 0 ? ", " : ""}
          <KeyLink publicKey={k} />
        </span>
      ))}
    </span>
  );
}

function Step({ tx }: { tx: Transaction }) {
  const spends = tx.inputs.flatMap((input) => (input.fulfills === null ? [] : [input.fulfills]));
  return (
    <li class="step">
      <p>
        <span class="op">{tx.operation}</span> <TxLink id={tx.id} />
      </p>
      {spends.length === 0 ? null : (
        <p>
          spends{" "}
          {spends.map((f, i) => (
            <span key={`${f.transaction_id}:${f.output_index}`}>
              {i > 0 ? ", " : ""}output {f.output_index} of <TxLink id={f.transaction_id} />
            </span>
          ))}
        </p>
      )}
      <ul class="makes" aria-label="Outputs">
        {tx.outputs.map((output, i) => (
          <li key={i}>
            makes output {i}: <OutputSummary output={output} />
          </li>
        ))}
      </ul>
    </li>
  );
}

function Holders({ history }: { history: History }) {
  const holdings = holdersOf(history.txs);
  return (
    <Section title="Held now by" id="holders">
      {history.complete ? null : <Notice>Of the first {history.txs.length} transactions only: the history is longer than this page reads.</Notice>}
      {holdings.length === 0 ? (
        <p>Nobody: every output is spent.</p>
      ) : (
        <ul class="items">
          {holdings.map((h) => (
            <li key={`${h.transactionId}:${h.outputIndex}`} class="item">
              <OutputSummary output={h.output} /> (output {h.outputIndex} of <TxLink id={h.transactionId} />)
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function AssetBody({ id, history }: { id: string; history: History }) {
  const create = history.txs.find((tx) => tx.id === id && tx.operation === "CREATE");
  if (history.txs.length === 0) {
    return <Notice>No transaction of this asset. An asset's id is the id of the CREATE that made it.</Notice>;
  }
  return (
    <>
      <Section title="Data" id="data">
        {create === undefined ? <p>Unknown.</p> : <Json value={create.asset?.data ?? null} label="Asset data (JSON)" />}
      </Section>
      <Holders history={history} />
      <Section title={`History (${history.txs.length}${history.complete ? "" : "+"} transactions)`} id="history">
        {history.odd === 0 ? null : <Notice>{history.odd} answers of another shape are left out.</Notice>}
        <ol class="chain">
          {history.txs.map((tx) => (
            <Step key={tx.id} tx={tx} />
          ))}
        </ol>
      </Section>
    </>
  );
}

export function AssetPage({ id }: { id: string }) {
  const api = useApi();
  useTitle(`Asset ${id.slice(0, 8)}`);
  const loaded = useAnswer(() => loadHistory(api, id), id);
  return (
    <>
      <h1>
        Asset <code class="wrap">{id}</code>
      </h1>
      {loaded.loading ? (
        <Loading what="the asset's history" />
      ) : loaded.answer.ok ? (
        <AssetBody id={id} history={loaded.answer.value} />
      ) : (
        <Failure answer={loaded.answer} what="history of this asset" />
      )}
    </>
  );
}
