// What the HTTP app tells an observer (the node's metrics) about each answered request. The app
// knows nothing of how it is counted; without an observer no hook is installed at all.
import type { FastifyInstance } from "fastify";
import { knownPathAt } from "./resource.js";

export interface HttpObserver {
  /**
   * One answered request: `route` is the matched route's pattern (`/api/v1/transactions/:transaction_id`),
   * never the URL, so the set of values stays bounded; `unmatchedRoute` for a URL no route has.
   */
  request(method: string, route: string, status: number, seconds: number): void;
}

export const unmatchedRoute = "(unmatched)";

export function installRequestObserver(app: FastifyInstance, observer: HttpObserver): void {
  app.addHook("onResponse", (request, reply, done) => {
    // A method the path does not allow (405) is counted under the path's route, as a URL no
    // route has is not.
    const route = request.routeOptions.url ?? knownPathAt(app, request.url)?.pattern ?? unmatchedRoute;
    observer.request(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
