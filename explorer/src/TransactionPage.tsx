// `#/tx/<id>`: one committed transaction, the block that holds it, and its proof where the
// node serves proofs. A transaction of another shape (an earlier variant's) is shown as JSON.
import { ProofCheck } from "./ProofCheck.js";
import { TransactionView } from "./TransactionView.js";
import { Failure, Json, Loading, Notice, Section, useAnswer, useApi, useTitle } from "./ui.js";
import { isTransaction } from "./wire.js";

/** The height of the block holding `id` (`GET /blocks?transaction_id=` answers `[h]` or `[]`). */
function useHeightOf(id: string): number | null {
  const api = useApi();
  const loaded = useAnswer(() => api.ask<unknown>((client) => client.blocksOf(id)), id);
  if (loaded.loading || !loaded.answer.ok) return null;
  const list = loaded.answer.value;
  const first: unknown = Array.isArray(list) ? list[0] : undefined;
  return Number.isSafeInteger(first) ? (first as number) : null;
}

export function TransactionPage({ id }: { id: string }) {
  const api = useApi();
  useTitle(`Transaction ${id.slice(0, 8)}`);
  const loaded = useAnswer(() => api.ask<unknown>((client) => client.getTransaction(id)), id);
  const height = useHeightOf(id);
  return (
    <>
      <h1>
        Transaction <code class="wrap">{id}</code>
      </h1>
      {loaded.loading ? (
        <Loading what="the transaction" />
      ) : !loaded.answer.ok ? (
        <>
          <Failure answer={loaded.answer} what="committed transaction with this id" />
          {loaded.answer.status === 404 ? <Notice>A transaction appears here once its block is committed.</Notice> : null}
        </>
      ) : isTransaction(loaded.answer.value) ? (
        <>
          <TransactionView tx={loaded.answer.value} height={height} />
          <ProofCheck id={id} />
          <Section title="Raw JSON" id="raw">
            <details>
              <summary>Show the transaction as the node answered it</summary>
              <Json value={loaded.answer.value} label="Transaction (JSON)" />
            </details>
          </Section>
        </>
      ) : (
        <>
          <Section title="As the node answered it" id="raw">
            <Notice>This transaction is not in the v2.0 format; here it is as the node answered it.</Notice>
            <Json value={loaded.answer.value} label="Transaction (JSON)" />
          </Section>
          <ProofCheck id={id} />
        </>
      )}
    </>
  );
}
