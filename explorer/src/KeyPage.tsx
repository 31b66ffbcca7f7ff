// `#/key/<base58>`: a public key's balances (ledgerd's `GET /balances`) and its outputs, unspent
// and spent, each a page at a time (a key may hold thousands of assets: anyone can give it one). On a node without `include=amount,asset_id` or `balances`
// (BigchainDB) the outputs are listed without amounts and the balances are not shown.
import { useState } from "preact/hooks";
import type { Api } from "./api.js";
import { Pager, type Answer } from "./pager.js";
import { balancesPageSize, outputsPageSize } from "./limits.js";
import { AssetLink, Failure, Loading, Notice, Section, TxLink, useAnswer, useApi, useTitle } from "./ui.js";
import { isBalance, isOutputRef, type Balance, type OutputRef } from "./wire.js";

/** The items read so far, and the pager that reads the next page. */
interface Pages<T> {
  readonly items: readonly T[];
  readonly pager: Pager<T>;
  readonly more: boolean;
}

/** The first page read by `pager`, or the answer's failure. */
async function firstPage<T>(pager: Pager<T>, pageSize: number): Promise<Answer<Pages<T>>> {
  const page = await pager.take(pageSize);
  return page.ok ? { ok: true, value: { ...page.value, pager } } : page;
}

/** An array as the async iterator a pager reads. */
async function* each<T>(list: readonly T[]): AsyncGenerator<T> {
  yield* list;
}

/** The first page; a node that refuses `include` or `limit` (400) is asked as BigchainDB is. */
async function firstOutputs(api: Api, publicKey: string, spent: boolean): Promise<Answer<Pages<OutputRef>>> {
  const rich = await firstPage(new Pager(api.client.outputs(publicKey, spent, { include: ["amount", "asset_id"], pageSize: outputsPageSize }), isOutputRef), outputsPageSize);
  if (rich.ok || rich.status !== 400) return rich;
  const whole = await api.ask((client) => client.getOutputs(publicKey, spent));
  return whole.ok ? firstPage(new Pager(each(whole.value), isOutputRef), outputsPageSize) : whole;
}

/** The pages read so far from `first` on, and `more` to read the next one. */
function usePages<T>(first: Pages<T>, pageSize: number) {
  const [pages, setPages] = useState<Pages<T> & { error: string | null }>({ ...first, error: null });
  const more = async (): Promise<void> => {
    const page = await pages.pager.take(pageSize);
    if (!page.ok) return setPages({ ...pages, error: page.message });
    setPages({ ...pages, items: [...pages.items, ...page.value.items], more: page.value.more, error: null });
  };
  return { pages, more };
}

/** The "Load more" button, and why none may show, under a paged table. */
function MoreControls({ pages, pageSize, more }: { pages: Pages<unknown> & { error: string | null }; pageSize: number; more: () => Promise<void> }) {
  const api = useApi();
  // Across origins a browser hides `Link` unless the node exposes it: a full page may hide more.
  const maybeMore = !pages.more && pages.items.length % pageSize === 0 && new URL(api.base).origin !== window.location.origin;
  return (
    <>
      {pages.more ? (
        <button type="button" onClick={() => void more()}>
          Load more
        </button>
      ) : null}
      {maybeMore ? <Notice>More may follow: the node does not show its paging header to this page's origin.</Notice> : null}
      {pages.error === null ? null : <Notice>The next page failed: {pages.error}</Notice>}
    </>
  );
}

function OutputsTable({ first, label }: { first: Pages<OutputRef>; label: string }) {
  const { pages, more } = usePages(first, outputsPageSize);
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

/** The first page of balances. */
function firstBalances(api: Api, publicKey: string): Promise<Answer<Pages<Balance>>> {
  return firstPage(new Pager(api.client.balances(publicKey, undefined, { pageSize: balancesPageSize }), isBalance), balancesPageSize);
}

function BalancesTable({ first }: { first: Pages<Balance> }) {
  const { pages, more } = usePages(first, balancesPageSize);
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
