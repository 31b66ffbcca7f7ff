// What `ledgerd audit` shows in its help and exits with, apart from the auditor (audit.ts), so
// that the command line registers the command without loading the auditor and what it imports.

/** Inclusion proofs checked per new checkpoint, by default. */
export const auditSamplesDefault = 4;
/** Seconds between rounds when following, by default. */
export const auditIntervalSecondsDefault = 60;

/** Exit codes: the worst of a round (docs/transparency.md "Auditor"). */
export const auditExit = { ok: 0, trouble: 1, badSignature: 2, inconsistent: 3 } as const;
