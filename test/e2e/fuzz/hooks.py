# Schemathesis hooks of test/e2e/fuzz.test.ts (loaded by schemathesis.toml). What one
# parameter's schema in the OpenAPI document cannot say, and the document says in words, is
# kept out of the requests the fuzzer sends as valid ones ("positive" cases); requests it sends
# as invalid are left as generated, and must all be refused.
import schemathesis


@schemathesis.hook
def map_case(context, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not case.query:
        return case
    query = case.query
    path = case.operation.path
    # A cursor is valid only when this node gave it for the same query (src/http/paging.ts);
    # any other text, however well formed, is refused 400 by design (issue 36, finding 5).
    query.pop("cursor", None)
    # last_tx=true answers one transaction, so it takes no limit (src/http/routes/transactions.ts).
    if path == "/api/v1/transactions" and str(query.get("last_tx", "")).lower() == "true":
        query.pop("limit", None)
    # A consistency proof runs from an earlier height to a later one (`from` not after `to`).
    if path == "/api/v1/proofs/consistency" and "to" in query and "from" in query:
        low, high = sorted([int(query["from"]), int(query["to"])])
        query["from"], query["to"] = low, high
    return case
