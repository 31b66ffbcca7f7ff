// The explorer's frame: a header with the search box and the stream's state, and the page of the
// current hash route. One Live store for the whole visit, so the chart keeps counting while the
// reader browses other pages.
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { Api } from "./api.js";
import { AssetPage } from "./AssetPage.js";
import { BlockPage } from "./BlockPage.js";
import { classifyQuery } from "./classifyQuery.js";
import { ErrorBoundary } from "./ErrorBoundary.js";
import { HomePage } from "./HomePage.js";
import { KeyPage } from "./KeyPage.js";
import { Live, useLive, type LiveStatus } from "./live.js";
import { hrefOf, type Route } from "./route.js";
import { useRoute } from "./useRoute.js";
import { SearchPage } from "./SearchPage.js";
import { TransactionPage } from "./TransactionPage.js";
import { ApiContext, Notice } from "./ui.js";

const statusText: Record<LiveStatus, string> = {
  connecting: "connecting…",
  live: "live",
  reconnecting: "reconnecting…",
  unavailable: "unavailable",
};

function SearchBox() {
  const input = useRef<HTMLInputElement>(null);
  const submit = (event: Event): void => {
    event.preventDefault();
    const route = classifyQuery(input.current?.value ?? "");
    if (route !== null) window.location.hash = hrefOf(route);
  };
  return (
    <form role="search" class="search" onSubmit={submit}>
      <label for="q">Search</label>
      <input id="q" ref={input} type="search" placeholder="Transaction id, block height, public key or words" autocomplete="off" spellcheck={false} />
      <button type="submit">Go</button>
    </form>
  );
}

function Page({ route, live }: { route: Route; live: Live }) {
  const state = useLive(live);
  switch (route.page) {
    case "home":
      return <HomePage live={live} state={state} />;
    case "tx":
      return <TransactionPage id={route.id} />;
    case "block":
      return <BlockPage height={route.height} />;
    case "asset":
      return <AssetPage id={route.id} />;
    case "key":
      return <KeyPage publicKey={route.key} />;
    case "search":
      return <SearchPage words={route.words} />;
    case "unknown":
      return (
        <>
          <h1>Nothing here</h1>
          <Notice>
            The address <code>{route.hash}</code> names no page. <a href="#/">Go to the latest blocks</a>.
          </Notice>
        </>
      );
  }
}

function StreamStatus({ live }: { live: Live }) {
  const state = useLive(live);
  return (
    <p class={`status status-${state.status}`} role="status">
      Stream: {statusText[state.status]}
    </p>
  );
}

export function App({ api }: { api: Api }) {
  const live = useMemo(() => new Live(api), [api]);
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    void live.start();
    return () => live.stop();
  }, [live]);
  // The hash is the route, so the skip link moves the focus instead of following its href.
  const skipToMain = (event: Event): void => {
    event.preventDefault();
    main.current?.focus();
  };
  // A new page moves the focus to it, as a page load would, for keyboard and screen readers.
  const routeKey = hrefOf(route);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [routeKey]);
  return (
    <ApiContext.Provider value={api}>
      <a class="skip" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/">
          ledgerd explorer
        </a>
        <nav aria-label="Main">
          <ul class="inline">
            <li>
              <a href="#/">Latest</a>
            </li>
            <li>
              <a href={`${api.base}/api/v1/`}>API</a>
            </li>
          </ul>
        </nav>
        <SearchBox />
        <StreamStatus live={live} />
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <ErrorBoundary key={routeKey}>
          <Page route={route} live={live} />
        </ErrorBoundary>
      </main>
      <footer class="bottom">
        <p>
          Reading the node at <code>{api.base}</code> through its public API. Add <code>?node=http://host:port</code> to
          the address to read another.
        </p>
      </footer>
    </ApiContext.Provider>
  );
}
