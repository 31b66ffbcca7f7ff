// `#/`: the latest blocks and transactions, updating live from the event streams, the activity
// chart, and the validator set.
import { ActivityChart } from "./ActivityChart.js";
import type { Live, LiveState } from "./live.js";
import { CheckpointView } from "./CheckpointView.js";
import { AssetLink, BlockLink, Notice, Section, TxLink, useTitle } from "./ui.js";
import { Validators } from "./Validators.js";

function LatestBlocks({ state }: { state: LiveState }) {
  const empty =
    state.latest === "loading"
      ? "Loading…"
      : state.latest === "unavailable"
        ? "This node does not list its latest blocks: new ones appear here as they are committed."
        : "No block yet.";
  return (
    <Section title="Latest blocks" id="blocks">
      {state.blocks.length === 0 ? (
        <Notice>{empty}</Notice>
      ) : (
        <div class="scroll">
          <table>
            <caption class="visually-hidden">Latest blocks, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Height</th>
                <th scope="col" class="num">Transactions</th>
              </tr>
            </thead>
            <tbody>
              {state.blocks.map((b) => (
                <tr key={b.height}>
                  <td>
                    <BlockLink height={b.height} />
                  </td>
                  <td class="num">{b.exact ? b.transactions : `${b.transactions}+`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {state.blockSource === "valid_transactions" && state.status === "live" ? (
        <p class="hint">Blocks are told from the transaction stream: blocks without a transaction are not shown.</p>
      ) : null}
    </Section>
  );
}

function LatestTransactions({ state }: { state: LiveState }) {
  return (
    <Section title="Latest transactions" id="transactions">
      {state.transactions.length === 0 ? (
        <Notice>{state.status === "live" ? "Waiting for the next committed transaction…" : "None yet."}</Notice>
      ) : (
        <div class="scroll">
          <table>
            <caption class="visually-hidden">Latest committed transactions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Transaction</th>
                <th scope="col">Block</th>
                <th scope="col">Asset</th>
              </tr>
            </thead>
            <tbody>
              {state.transactions.map((t) => (
                <tr key={t.id}>
                  <td>
                    <TxLink id={t.id} />
                  </td>
                  <td>
                    <BlockLink height={t.height} />
                  </td>
                  <td>{t.assetId === null ? "—" : <AssetLink id={t.assetId} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

export function HomePage({ live, state }: { live: Live; state: LiveState }) {
  useTitle("Latest");
  return (
    <>
      <h1>Latest on the ledger</h1>
      <div class="grid">
        <LatestBlocks state={state} />
        <LatestTransactions state={state} />
        <Section title="Activity" id="activity">
          {state.status === "unavailable" ? (
            <Notice>The event stream is unavailable: the chart cannot follow the node.</Notice>
          ) : (
            <ActivityChart live={live} />
          )}
        </Section>
        <Validators />
        <CheckpointView />
      </div>
    </>
  );
}
