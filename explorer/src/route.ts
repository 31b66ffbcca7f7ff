// Hash routes (`#/tx/<id>`, `#/block/<h>`, ...), so that one index.html serves every page and
// the node needs no route per page; the query string (`?node=`) is left alone by every link.
// Pure (useRoute.ts follows the page's hash).

export type Route =
  | { readonly page: "home" }
  | { readonly page: "tx"; readonly id: string }
  | { readonly page: "block"; readonly height: number }
  | { readonly page: "asset"; readonly id: string }
  | { readonly page: "key"; readonly key: string }
  | { readonly page: "search"; readonly words: string }
  | { readonly page: "unknown"; readonly hash: string };

const heightPattern = /^[0-9]{1,15}$/;

/** The route of `location.hash` (with or without its `#`). */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "").replace(/^\/+/, "");
  if (path === "") return { page: "home" };
  const slash = path.indexOf("/");
  const head = slash < 0 ? path : path.slice(0, slash);
  let rest: string;
  try {
    rest = decodeURIComponent(slash < 0 ? "" : path.slice(slash + 1));
  } catch {
    return { page: "unknown", hash };
  }
  if (head === "tx" && rest !== "") return { page: "tx", id: rest };
  if (head === "block" && heightPattern.test(rest)) return { page: "block", height: Number(rest) };
  if (head === "asset" && rest !== "") return { page: "asset", id: rest };
  if (head === "key" && rest !== "") return { page: "key", key: rest };
  if (head === "search" && rest.trim() !== "") return { page: "search", words: rest };
  return { page: "unknown", hash };
}

/** The `href` of a route, as a hash. */
export function hrefOf(route: Route): string {
  switch (route.page) {
    case "home":
      return "#/";
    case "tx":
      return `#/tx/${encodeURIComponent(route.id)}`;
    case "block":
      return `#/block/${route.height}`;
    case "asset":
      return `#/asset/${encodeURIComponent(route.id)}`;
    case "key":
      return `#/key/${encodeURIComponent(route.key)}`;
    case "search":
      return `#/search/${encodeURIComponent(route.words)}`;
    case "unknown":
      return route.hash;
  }
}

export const txHref = (id: string): string => hrefOf({ page: "tx", id });
export const blockHref = (height: number): string => hrefOf({ page: "block", height });
export const assetHref = (id: string): string => hrefOf({ page: "asset", id });
export const keyHref = (key: string): string => hrefOf({ page: "key", key });
