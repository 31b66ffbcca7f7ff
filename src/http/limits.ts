// Fixed limits of the HTTP server (STYLE rule 11). The ones an operator may want to change are
// options (options.ts); these bound what one connection can cost, whatever a client does.

/**
 * Answer bytes one connection may have queued in its socket, not yet taken by the kernel. Past
 * it, the connection's next request waits and its socket is not read until the client reads
 * ('drain'): a client that does not read its answers stops costing the node more memory.
 */
export const connectionUnsentBytesMax = 1024 * 1024;

/**
 * Requests of one connection parsed but waiting for their turn (pipelined past
 * `HttpOptions.pipelinedRequestsMax`, or behind unread answers). The socket is not read while
 * one waits, so only one read's worth (64 KiB) can arrive at once; a connection that still
 * gathers more than this is closed, so that none holds an unbounded queue of request objects.
 */
export const connectionWaitingRequestsMax = 256;

/**
 * Characters of a block height in a query (a proof's `height`, `from`, `to`): 2^64 has 20 digits.
 * Leading zeros past it are refused, so that a height cannot make an answer's message, or the
 * line that logs it, as long as the request line.
 */
export const heightCharsMax = 20;

/**
 * Characters of a request's URL in a log line; the rest is cut (`loggedUrl`). Request lines run
 * to `requestHeadBytesMax`: a client must not set the size of the node's log lines.
 */
export const loggedUrlCharsMax = 512;
