// `#/key/<base58>`: a public key's balances (ledgerd's `GET /balances`) and its outputs, unspent
// and spent, a page at a time. On a node without `include=amount,asset_id` or `balances`
// (BigchainDB) the outputs are listed without amounts and the balances are not shown.
import { useState } from "preact/hooks";
import { query, type Answer, type Api } from "./api.js";
import { outputsPageSize } from "./limits.js";
import { AssetLink, Failure, Loading, Notice, Section, TxLink, useAnswer, useApi, useTitle } from "./ui.js";
import { isBalance, isOutputRef, listOf, type Balance, type OutputRef } from "./wire.js";

interface Page {
  readonly items: readonly OutputRef[];
  readonly next: string | null;
}

/** The first page; a node that refuses `include` or `limit` (400) is asked as BigchainDB is. */
async function firstOutputs(api: Api, publicKey: string, spent: boolean): Promise<Answer<Page>> {
  const rich = await api.get<unknown>(`/outputs${query({ public_key: publicKey, spent, include: "amount,asset_id", limit: outputsPageSize })}`);
  const answer = rich.ok || rich.status !== 400 ? rich : await api.get<unknown>(`/outputs${query({ public_key: publicKey, spent })}`);
  return pageOf(answer);
}

function pageOf(answer: Answer<unknown>): Answer<Page> {
  if (!answer.ok) return answer;
  const items = listOf(answer.value, isOutputRef);
  if (items === null) return { ok: false, status: 0, message: "the answer is not a list" };
  return { ok: true, value: { items, next: answer.next }, next: answer.next };
}

function OutputsTable({ first, label }: { first: Page; label: string }) {
  const api = useApi();
  const [pages, setPages] = useState<{ items: readonly OutputRef[]; next: string | null; error: string | null }>({ ...first, error: null });
  const more = async (): Promise<void> => {
    if (pages.next === null) return;
    const answer = pageOf(await api.getUrl<unknown>(pages.next));
    if (!answer.ok) return setPages({ ...pages, error: answer.message });
    setPages({ items: [...pages.items, ...answer.value.items], next: answer.value.next, error: null });
  };
  if (pages.items.length === 0) return <p>None.</p>;
  const amounts = pages.items.some((o) => o.amount !== undefined);
  // Across origins a browser hides `Link` unless the node exposes it: a full page may hide more.
  const maybeMore = pages.next === null && pages.items.length % outputsPageSize === 0 && new URL(api.base).origin !== window.location.origin;
  return (
    <>
      <div class="scroll">
        <table>
          <caption class="visually-hidden">{label}</caption>
          <thead>
            <tr>
              <th scope="col">Transaction</th>
              <th scope="col" class="num">Output</th>
              <th scope="col" class="num">Amount</th>
              <th scope="col">Asset</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((o) => (
              <tr key={`${o.transaction_id}:${o.output_index}`}>
                <td>
                  <TxLink id={o.transaction_id} />
                </td>
                <td class="num">{o.output_index}</td>
                <td class="num amount">{o.amount ?? "—"}</td>
                <td>{o.asset_id === undefined ? "—" : <AssetLink id={o.asset_id} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {amounts ? null : <Notice>This node does not give amounts with outputs: open a transaction to see them.</Notice>}
      {pages.next === null ? null : (
        <button type="button" onClick={() => void more()}>
          Load more
        </button>
      )}
      {maybeMore ? <Notice>More may follow: the node does not show its paging header to this page's origin.</Notice> : null}
      {pages.error === null ? null : <Notice>The next page failed: {pages.error}</Notice>}
    </>
  );
}

function Outputs({ publicKey, spent }: { publicKey: string; spent: boolean }) {
  const api = useApi();
  const title = spent ? "Spent outputs" : "Unspent outputs";
  const loaded = useAnswer(() => firstOutputs(api, publicKey, spent), `${publicKey}:${spent}`);
  return (
    <Section title={title} id={spent ? "spent" : "unspent"}>
      {loaded.loading ? (
        <Loading what="outputs" />
      ) : loaded.answer.ok ? (
        <OutputsTable key={publicKey} first={loaded.answer.value} label={title} />
      ) : (
        <Failure answer={loaded.answer} what="outputs" />
      )}
    </Section>
  );
}

/** Balances are ledgerd's own: on a node without them the section is left out. */
function Balances({ publicKey }: { publicKey: string }) {
  const api = useApi();
  const loaded = useAnswer(() => api.get<unknown>(`/balances${query({ public_key: publicKey })}`), publicKey);
  if (loaded.loading || !loaded.answer.ok) return null;
  const balances: Balance[] | null = listOf(loaded.answer.value, isBalance);
  if (balances === null) return null;
  return (
    <Section title="Balances" id="balances">
      <p class="hint">What this key alone may spend: outputs under a threshold condition are not counted.</p>
      {balances.length === 0 ? (
        <p>None.</p>
      ) : (
        <div class="scroll">
          <table>
            <caption class="visually-hidden">Balances by asset</caption>
            <thead>
              <tr>
                <th scope="col">Asset</th>
                <th scope="col" class="num">Amount</th>
              </tr>
            </thead>
            <tbody>
              {balances.map((b) => (
                <tr key={b.asset_id}>
                  <td>
                    <AssetLink id={b.asset_id} />
                  </td>
                  <td class="num amount">{b.amount}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

export function KeyPage({ publicKey }: { publicKey: string }) {
  useTitle(`Key ${publicKey.slice(0, 8)}`);
  return (
    <>
      <h1>
        Public key <code class="wrap">{publicKey}</code>
      </h1>
      <Balances publicKey={publicKey} />
      <Outputs publicKey={publicKey} spent={false} />
      <Outputs publicKey={publicKey} spent={true} />
    </>
  );
}
