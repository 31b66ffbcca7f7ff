// `#/search/<words>`: the node's text search over asset data and metadata (MongoDB's text
// search syntax, docs/compatibility.md #12), best match first, `searchResultsMax` of each.
import { searchResultsMax, snippetChars } from "./limits.js";
import { AssetLink, Failure, Loading, Section, TxLink, useAnswer, useApi, useTitle } from "./ui.js";
import { isObject, isString } from "./wire.js";

interface Hit {
  readonly id: string;
  readonly content: unknown;
}

function snippet(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > snippetChars ? `${text.slice(0, snippetChars)}…` : text;
}

/** `[{"data", "id"}]` or `[{"id", "metadata"}]`: the id and the document, of either shape. */
function hitsOf(value: unknown, field: "data" | "metadata"): Hit[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v: unknown) => (isObject(v) && isString(v.id) ? [{ id: v.id, content: v[field] }] : []));
}

function Results({ words, kind }: { words: string; kind: "assets" | "metadata" }) {
  const api = useApi();
  const loaded = useAnswer(() => api.ask<unknown>((client) => (kind === "assets" ? client.searchAssets(words, searchResultsMax) : client.searchMetadata(words, searchResultsMax))), `${kind}:${words}`);
  const title = kind === "assets" ? "Assets" : "Metadata";
  if (loaded.loading) {
    return (
      <Section title={title} id={kind}>
        <Loading what={`${kind} matches`} />
      </Section>
    );
  }
  if (!loaded.answer.ok) {
    return (
      <Section title={title} id={kind}>
        <Failure answer={loaded.answer} what={`${kind} search`} />
      </Section>
    );
  }
  const hits = hitsOf(loaded.answer.value, kind === "assets" ? "data" : "metadata");
  return (
    <Section title={`${title} (${hits.length})`} id={kind}>
      {hits.length === 0 ? (
        <p>No match.</p>
      ) : (
        <ol class="items">
          {hits.map((hit) => (
            <li key={hit.id} class="item">
              {kind === "assets" ? <AssetLink id={hit.id} /> : <TxLink id={hit.id} />}
              <code class="snippet">{snippet(hit.content)}</code>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}

export function SearchPage({ words }: { words: string }) {
  useTitle(`Search ${words}`);
  return (
    <>
      <h1>Search: “{words}”</h1>
      <Results words={words} kind="assets" />
      <Results words={words} kind="metadata" />
    </>
  );
}
