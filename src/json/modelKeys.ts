/**
 * Every key of a v2.0 transaction (schemas.ts). The JSON reader and writers treat them as known
 * constants, which is cheaper than handling them as arbitrary text (readJson.ts,
 * quoteJsonString.ts); any other key takes the general path.
 */
export const txModelKeys: readonly string[] = [
  "amount", "asset", "condition", "data", "details", "fulfillment", "fulfills", "id", "inputs",
  "metadata", "operation", "output_index", "outputs", "owners_before", "public_key", "public_keys",
  "subconditions", "threshold", "transaction_id", "type", "uri", "version",
];
