// Fixed limits of every HTTP server of the node, the API's and the event stream's.

/**
 * Bytes of the request line and headers together (Node's `maxHeaderSize`, its default made
 * explicit on each server): a URL or a header past it is answered 431 and the connection closed.
 * BigchainDB's Gunicorn allowed 4 KB of request line and 8 KB per header; ids and keys are under
 * 100 bytes.
 */
export const requestHeadBytesMax = 16 * 1024;
