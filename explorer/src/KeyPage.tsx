// `#/key/<base58>`: a public key's balances (ledgerd's `GET /balances`) and its outputs, unspent
// and spent, each a page at a time (a key may hold thousands of assets: anyone can give it one). On a node without `include=amount,asset_id` or `balances`
// (BigchainDB) the outputs are listed without amounts and the balances are not shown.
import { useState } from "preact/hooks";
import { query, type Answer, type Api } from "./api.js";
import { balancesPageSize, outputsPageSize } from "./limits.js";
import { AssetLink, Failure, Loading, Notice, Section, TxLink, useAnswer, useApi, useTitle } from "./ui.js";
import { isBalance, isOutputRef, listOf, type Balance, type OutputRef } from "./wire.js";

interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

/** The first page; a node that refuses `include` or `limit` (400) is asked as BigchainDB is. */
async function firstOutputs(api: Api, publicKey: string, spent: boolean): Promise<Answer<Page<OutputRef>>> {
  const rich = await api.get<unknown>(`/outputs${query({ public_key: publicKey, spent, include: "amount,asset_id", limit: outputsPageSize })}`);
  const answer = rich.ok || rich.status !== 400 ? rich : await api.get<unknown>(`/outputs${query({ public_key: publicKey, spent })}`);
  return pageOf(answer, isOutputRef);
}

function pageOf<T>(answer: Answer<unknown>, isItem: (value: unknown) => value is T): Answer<Page<T>> {
  if (!answer.ok) return answer;
  const items = listOf(answer.value, isItem);
  if (items === null) return { ok: false, status: 0, message: "the answer is not a list" };
  return { ok: true, value: { items, next: answer.next }, next: answer.next };
}

/** The pages read so far from `first` on, and `more` to read the next one (its `Link`). */
function usePages<T>(first: Page<T>, isItem: (value: unknown) => value is T) {
  const api = useApi();
  const [pages, setPages] = useState<Page<T> & { error: string | null }>({ ...first, error: null });
  const more = async (): Promise<void> => {
    if (pages.next === null) return;
    const answer = pageOf(await api.getUrl<unknown>(pages.next), isItem);
    if (!answer.ok) return setPages({ ...pages, error: answer.message });
    setPages({ items: [...pages.items, ...answer.value.items], next: answer.value.next, error: null });
  };
  return { pages, more };
}

/** The "Load more" button, and why none may show, under a paged table. */
function MoreControls({ pages, pageSize, more }: { pages: Page<unknown> & { error: string | null }; pageSize: number; more: () => Promise<void> }) {
  const api = useApi();
  // Across origins a browser hides `Link` unless the node exposes it: a full page may hide more.
  const maybeMore = pages.next === null && pages.items.length % pageSize === 0 && new URL(api.base).origin !== window.location.origin;
  return (
    <>
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

function OutputsTable({ first, label }: { first: Page<OutputRef>; label: string }) {
  const { pages, more } = usePages(first, isOutputRef);
  if (pages.items.length === 0) return <p>None.</p>;
  const amounts = pages.items.some((o) => o.amount !== undefined);
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
      <MoreControls pages={pages} pageSize={outputsPageSize} more={more} />
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

/**
 * The first page of balances; a ledgerd from before balances were paged refuses `limit` (400)
 * and is asked for them whole.
 */
async function firstBalances(api: Api, publicKey: string): Promise<Answer<Page<Balance>>> {
  const paged = await api.get<unknown>(`/balances${query({ public_key: publicKey, limit: balancesPageSize })}`);
  const answer = paged.ok || paged.status !== 400 ? paged : await api.get<unknown>(`/balances${query({ public_key: publicKey })}`);
  return pageOf(answer, isBalance);
}

function BalancesTable({ first }: { first: Page<Balance> }) {
  const { pages, more } = usePages(first, isBalance);
  if (pages.items.length === 0) return <p>None.</p>;
  return (
    <>
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
            {pages.items.map((b) => (
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
      <MoreControls pages={pages} pageSize={balancesPageSize} more={more} />
    </>
  );
}

/** Balances are ledgerd's own: on a node without them the section is left out. */
function Balances({ publicKey }: { publicKey: string }) {
  const api = useApi();
  const loaded = useAnswer(() => firstBalances(api, publicKey), publicKey);
  if (loaded.loading || !loaded.answer.ok) return null;
  return (
    <Section title="Balances" id="balances">
      <p class="hint">What this key alone may spend: outputs under a threshold condition are not counted.</p>
      <BalancesTable key={publicKey} first={loaded.answer.value} />
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
