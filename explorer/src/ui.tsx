// Small pieces every page uses: links to ids and keys, pretty JSON, notices, and the hook that
// loads an answer for a page. Ids are shortened in lists (the full id is the link's title and
// is on the page it leads to).
import type { ComponentChildren } from "preact";
import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import type { Answer, Api } from "./api.js";
import { idEndChars } from "./limits.js";
import { assetHref, blockHref, keyHref, txHref } from "./route.js";

export const ApiContext = createContext<Api | null>(null);

/** The node's API, as App provides it. */
export function useApi(): Api {
  const api = useContext(ApiContext);
  if (api === null) throw new Error("useApi outside <ApiContext.Provider>");
  return api;
}

export type Loaded<T> = { readonly loading: true } | { readonly loading: false; readonly answer: Answer<T> };

/**
 * Runs `load` when `key` changes and gives its answer; an answer that arrives after `key`
 * changed again is dropped, so a quick reader never sees the page before's data.
 */
export function useAnswer<T>(load: () => Promise<Answer<T>>, key: string): Loaded<T> {
  const [state, setState] = useState<{ key: string; loaded: Loaded<T> }>({ key, loaded: { loading: true } });
  useEffect(() => {
    let current = true;
    setState({ key, loaded: { loading: true } });
    void load().then((answer) => {
      if (current) setState({ key, loaded: { loading: false, answer } });
    });
    return () => {
      current = false;
    };
  }, [key]);
  return state.key === key ? state.loaded : { loading: true };
}

/** `abcdef12…34567890` for a long id; a short one whole. */
export function shortId(id: string): string {
  return id.length <= 2 * idEndChars + 1 ? id : `${id.slice(0, idEndChars)}…${id.slice(-idEndChars)}`;
}

export function TxLink({ id, full = false }: { id: string; full?: boolean }) {
  return (
    <a class="id" href={txHref(id)} title={id}>
      <code>{full ? id : shortId(id)}</code>
    </a>
  );
}

export function AssetLink({ id, full = false }: { id: string; full?: boolean }) {
  return (
    <a class="id" href={assetHref(id)} title={`asset ${id}`}>
      {/* An asset's id is its CREATE's: the hidden word tells the two links apart. */}
      <span class="visually-hidden">asset </span>
      <code>{full ? id : shortId(id)}</code>
    </a>
  );
}

export function KeyLink({ publicKey }: { publicKey: string }) {
  return (
    <a class="id key" href={keyHref(publicKey)} title={publicKey}>
      <code>{shortId(publicKey)}</code>
    </a>
  );
}

export function BlockLink({ height }: { height: number }) {
  return <a href={blockHref(height)}>{height}</a>;
}

/** Pretty-printed JSON in a scrollable box a keyboard can reach. */
export function Json({ value, label }: { value: unknown; label: string }) {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? "undefined";
  } catch {
    text = String(value);
  }
  return (
    <div class="json" role="region" aria-label={label} tabIndex={0}>
      <pre>{text}</pre>
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return <p class="notice">{children}</p>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** A failed answer in words: 404 as "not found", no answer as the node being unreachable. */
export function Failure({ answer, what }: { answer: { status: number; message: string }; what: string }) {
  if (answer.status === 404) return <Notice>No {what} found.</Notice>;
  if (answer.status === 0) return <Notice>The node did not answer ({answer.message}).</Notice>;
  return (
    <Notice>
      The node refused the request for {what}: {answer.status} {answer.message}
    </Notice>
  );
}

/** A titled section of a page, labelled by its heading. */
export function Section({ title, id, children }: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
    </section>
  );
}

/** Sets the document's title while a page is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · ledgerd explorer`;
  }, [title]);
}
