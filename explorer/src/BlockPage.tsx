// `#/block/<height>`: a block's transactions in block order. A block may hold thousands, so the
// first `blockTransactionsShownMax` are listed until the reader asks for all.
import { useState } from "preact/hooks";
import { blockTransactionsShownMax } from "./limits.js";
import { blockHref } from "./route.js";
import { AssetLink, Failure, Json, Loading, Notice, Section, TxLink, useAnswer, useApi, useTitle } from "./ui.js";
import { assetIdOf, blockTransactionsOf, idOf, isTransaction, operationOf } from "./wire.js";

function TransactionRow({ tx }: { tx: unknown }) {
  const id = idOf(tx);
  const assetId = isTransaction(tx) ? assetIdOf(tx) : null;
  return (
    <tr>
      <td>{id === null ? "(no id)" : <TxLink id={id} />}</td>
      <td>{operationOf(tx) ?? "unknown"}</td>
      <td>{assetId === null ? "—" : <AssetLink id={assetId} />}</td>
      <td class="num">{isTransaction(tx) ? tx.outputs.length : "—"}</td>
    </tr>
  );
}

function TransactionTable({ txs }: { txs: readonly unknown[] }) {
  const [all, setAll] = useState(false);
  const shown = all ? txs : txs.slice(0, blockTransactionsShownMax);
  const odd = txs.filter((tx) => idOf(tx) === null);
  return (
    <>
      <div class="scroll">
        <table>
          <caption class="visually-hidden">Transactions of the block, in block order</caption>
          <thead>
            <tr>
              <th scope="col">Transaction</th>
              <th scope="col">Operation</th>
              <th scope="col">Asset</th>
              <th scope="col" class="num">Outputs</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((tx, i) => (
              <TransactionRow key={idOf(tx) ?? i} tx={tx} />
            ))}
          </tbody>
        </table>
      </div>
      {shown.length < txs.length ? (
        <button type="button" onClick={() => setAll(true)}>
          Show all {txs.length} transactions
        </button>
      ) : null}
      {odd.length === 0 ? null : (
        <details>
          <summary>{odd.length} transactions without an id, as JSON</summary>
          <Json value={odd} label="Transactions without an id" />
        </details>
      )}
    </>
  );
}

export function BlockPage({ height }: { height: number }) {
  const api = useApi();
  useTitle(`Block ${height}`);
  const loaded = useAnswer(() => api.ask((client) => client.getBlock(height)), String(height));
  const txs = !loaded.loading && loaded.answer.ok ? blockTransactionsOf(loaded.answer.value) : null;
  return (
    <>
      <h1>Block {height}</h1>
      <nav class="pager" aria-label="Neighbouring blocks">
        {height > 1 ? <a href={blockHref(height - 1)}>← Block {height - 1}</a> : null}
        <a href={blockHref(height + 1)}>Block {height + 1} →</a>
      </nav>
      {loaded.loading ? (
        <Loading what="the block" />
      ) : !loaded.answer.ok ? (
        <Failure answer={loaded.answer} what={`block at height ${height} (yet)`} />
      ) : txs === null ? (
        <Section title="As the node answered it" id="raw">
          <Notice>The block is not in the format this page reads; here it is as the node answered it.</Notice>
          <Json value={loaded.answer.value} label="Block (JSON)" />
        </Section>
      ) : (
        <Section title={`Transactions (${txs.length})`} id="txs">
          {txs.length === 0 ? <p>This block holds no transaction.</p> : <TransactionTable txs={txs} />}
        </Section>
      )}
    </>
  );
}
