export interface HostPort {
  /** A host name, an IPv4 address, or an IPv6 address without its brackets. */
  readonly host: string;
  /** 0 asks the OS for a free port. */
  readonly port: number;
}

const portMax = 65_535;
// RFC 1123 host names: labels of letters, digits and inner hyphens, at most 253 characters.
const label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const hostNamePattern = new RegExp(`^(?=.{1,253}$)${label}(?:\\.${label})*$`);
// An IPv6 literal goes in brackets (RFC 3986 §3.2.2) so its colons are not read as the port's.
const ipv6Pattern = /^[0-9A-Fa-f:.]{2,45}$/;
const portPattern = /^(?:0|[1-9][0-9]{0,4})$/;

/**
 * `HOST:PORT` as BigchainDB's `server.bind` writes it (`localhost:9984`), or `[IPv6]:PORT`.
 * Null when the text is not one: the config loader reports why.
 */
export function parseHostPort(text: string): HostPort | null {
  const colon = text.lastIndexOf(":");
  if (colon <= 0) return null;
  const hostPart = text.slice(0, colon);
  const portPart = text.slice(colon + 1);
  if (!portPattern.test(portPart)) return null;
  const port = Number(portPart);
  if (port > portMax) return null;
  if (hostPart.startsWith("[") && hostPart.endsWith("]")) {
    const host = hostPart.slice(1, -1);
    return ipv6Pattern.test(host) && host.includes(":") ? { host, port } : null;
  }
  return hostNamePattern.test(hostPart) ? { host: hostPart, port } : null;
}

/**
 * The host a client on this machine connects to for a listen address: a wildcard (`0.0.0.0`,
 * `::`) is where the node listens, not an address to dial, so it is `localhost`; an IPv6 literal
 * gets its brackets back.
 */
export function clientHostOf(address: HostPort): string {
  if (address.host === "0.0.0.0" || address.host === "::") return "localhost";
  return address.host.includes(":") ? `[${address.host}]` : address.host;
}
