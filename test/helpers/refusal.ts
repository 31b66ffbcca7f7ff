// The LedgerError a promise is refused with; fails the test if it resolves or throws anything else.
import assert from "node:assert/strict";
import { LedgerError } from "../../src/errors/ledgerError.js";

export async function refusal(promise: Promise<unknown>): Promise<LedgerError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LedgerError, `not a LedgerError: ${String(error)}`);
    return error;
  }
  assert.fail("expected a refusal");
}
