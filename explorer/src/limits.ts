// Every cap and delay of the explorer, in one place (docs/STYLE.md rule 11: a named limit
// on everything). The page runs for hours in a tab: each list it keeps grows to a cap, no further.

/** Blocks fetched for the home page's list when it opens (from `blocks/latest` downwards). */
export const latestBlocksFetched = 10;
/** Blocks kept in the home page's list as the stream prepends new ones. */
export const latestBlocksShownMax = 20;
/** Transactions kept in the home page's list of the latest. */
export const latestTransactionsShownMax = 15;

/** The longest the page waits to redraw after a stream event (events are batched per redraw). */
export const liveNotifyDelayMs = 100;

/** The live chart's window: one bucket per second, this many seconds back. */
export const chartWindowSeconds = 60;
/** How often the chart redraws (the buckets are per second, so once a second). */
export const chartRedrawIntervalMs = 1_000;
/** The chart's height in CSS pixels; its width follows its container. */
export const chartHeightPx = 180;

/** Assets per page of a key's balances. */
export const balancesPageSize = 50;
/** Items per page of the outputs of a key. */
export const outputsPageSize = 50;
/** Transactions per page of an asset's history. */
export const historyPageSize = 100;
/** Pages of an asset's history read before stopping (the holders are then of the part read). */
export const historyPagesMax = 20;
/** Results of each search (assets, metadata). */
export const searchResultsMax = 20;
/** Transactions of a block listed before a "show all" (a block may hold thousands). */
export const blockTransactionsShownMax = 200;

/** A request that has not answered after this long is given up. */
export const requestTimeoutMs = 15_000;
/** The first delay before a dropped stream is reconnected; doubled on each failure. */
export const streamReconnectDelayMsMin = 1_000;
/** The longest delay between reconnection attempts. */
export const streamReconnectDelayMsMax = 30_000;

/** Hex digits shown at each end of an id shortened in a list. */
export const idEndChars = 8;
/** Characters of a fulfillment shown before it is cut (it is a long base64url string). */
export const fulfillmentShownChars = 48;
/** Nesting of a condition tree drawn before the rest is shown as JSON (a hostile node may nest deeply). */
export const conditionDepthMax = 16;
/** Characters of asset data or metadata shown in a search result before it is cut. */
export const snippetChars = 160;

/** Pages of validator changes a proof check reads at most (100 changes each: 10,000 elections). */
export const validatorChangePagesMax = 100;
