// Queries by field (docs/compatibility.md #25, docs/http-api.md "Queries by field"):
// `GET /api/v1/assets?data.<path>=<value>&...` and `GET /api/v1/metadata?metadata.<path>=...`,
// every filter an equality on a scalar leaf, all of them AND'ed, answered from the store's field
// index in commit order, in the element shape of the text search, paged with `limit` and
// `cursor` (a `Link: <...>; rel="next"` header names the next page).
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  fieldFilterProblem,
  fieldFiltersMax,
  type FieldFilter,
  type FieldScalar,
} from "../../store/fieldQuery.js";
import type { FieldHit, ApiReads } from "../../store/store.js";
import { parsePaging, sendList, type ListDeps } from "../paging.js";
import { badParameter, firstValue, rejectUnknown, type Query } from "../parameters.js";

export interface FieldRoute {
  readonly kind: "assets" | "metadata";
  /** `data.` or `metadata.`: the parameters that are filters. */
  readonly prefix: string;
  readonly write: (hit: FieldHit) => string;
}

/** True when the request names a field filter, so the field query answers it, not the search. */
export function isFieldQuery(query: Query, route: FieldRoute): boolean {
  return Object.keys(query).some((name) => name.startsWith(route.prefix));
}

export async function answerFieldQuery(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ListDeps & { readonly store: ApiReads; readonly limitMax: number },
  route: FieldRoute,
): Promise<FastifyReply> {
  const query = request.query as Query;
  const names = Object.keys(query);
  if (names.includes("search")) {
    throw badParameter("search", `give either search or ${route.prefix}* filters, not both`);
  }
  const filterNames = names.filter((name) => name.startsWith(route.prefix));
  if (filterNames.length > fieldFiltersMax) {
    throw badParameter(route.prefix, `${filterNames.length} filters; at most ${fieldFiltersMax}`);
  }
  const filters = filterNames.map((name) => parseFilter(name, route.prefix, firstValue(query, name)!));
  const ask = parsePaging(query, deps.limitMax);
  rejectUnknown(query, [...filterNames, "limit", "cursor"]);
  return sendList(request, reply, deps, ask, {
    scope: `${route.kind}\u0000${JSON.stringify(filters)}`,
    read: (page) => deps.store.streamFieldMatches(route.kind, filters, page),
    write: route.write,
  });
}

/**
 * `data.a.b` is the path ["a", "b"]. A dot always separates keys, with no escape: a v2.0
 * transaction cannot hold a key with a dot (nor `$` or NUL) in its asset data or metadata
 * (BigchainDB's key rule, checked when it is accepted), so no stored key needs one.
 */
function parseFilter(name: string, prefix: string, text: string): FieldFilter {
  const path = name.slice(prefix.length).split(".");
  if (path.includes("")) throw badParameter(name, "a path has no empty key (keys are separated by one dot)");
  const filter = { path, value: parseScalar(name, text) };
  const problem = fieldFilterProblem(filter);
  if (problem !== null) throw badParameter(name, problem);
  return filter;
}

const jsonNumber = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A value as written in the query string: `true`, `false`, `null` and JSON numbers are those
 * JSON scalars; text in double quotes is a JSON string literal (so `"42"` is the string 42 and
 * `"true"` the string true); anything else is the string as written.
 */
function parseScalar(name: string, text: string): FieldScalar {
  if (text === "true") return true;
  if (text === "false") return false;
  if (text === "null") return null;
  if (jsonNumber.test(text)) {
    const number = Number(text);
    if (!Number.isFinite(number)) throw badParameter(name, "the number is out of range");
    return number;
  }
  if (text.startsWith('"')) {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === "string") return value;
    } catch {
      // Falls through to the refusal below.
    }
    throw badParameter(name, 'a value in double quotes is a JSON string literal, e.g. "42"');
  }
  return text;
}
