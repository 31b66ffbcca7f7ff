// The page's route, following its hash (route.ts reads one).
import { useEffect, useState } from "preact/hooks";
import { parseRoute, type Route } from "./route.js";

/** The current route, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  useEffect(() => {
    const follow = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);
  return route;
}
