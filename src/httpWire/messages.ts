// The texts the API and the metrics server both answer an unknown path and a wrong method with;
// here, below both, so that neither server imports the other.

/** Werkzeug's text for an unknown URL, as BigchainDB answered it (there as HTML). */
export const unknownPathMessage =
  "The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.";

/** Werkzeug's text for a known URL with another method (flask-restful answered it as JSON). */
export const methodNotAllowedMessage = "The method is not allowed for the requested URL.";
