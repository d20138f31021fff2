/**
 * Which URLs a webhook may be sent to. Only public addresses of the owner's choosing: https, no
 * credentials in the URL, and a host whose every address is public unicast (ipaddr.js' ranges:
 * loopback, private, link-local, unique-local, carrier-grade NAT, unspecified, multicast,
 * reserved, NAT64 and the other special ranges are refused; an IPv4-mapped IPv6 address is judged
 * as the IPv4 it carries). The host is resolved and judged at registration (when the resolver
 * answers within WEBHOOK_DNS_TIMEOUT_MS; a slower one defers the judgment) and again on every
 * connection (`guardedLookup`, used by the delivery agent), so a name that later resolves to a
 * private address (DNS rebinding) is refused at delivery rather than reached. On the devnet, http
 * and loopback are allowed so a test or a developer can run a receiver on 127.0.0.1; private
 * ranges stay refused there too.
 */
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface UrlRules {
  allowHttp: boolean;
  allowLoopback: boolean;
}

export type UrlRefusal = 'invalid_url' | 'scheme' | 'credentials' | 'forbidden_address' | 'unresolvable';

export class UrlRefused extends Error {
  constructor(
    readonly reason: UrlRefusal,
    message: string,
    readonly address?: string,
  ) {
    super(message);
    this.name = 'UrlRefused';
  }
}

export const MAX_URL_LENGTH = 2048;

/** The range that forbids `ip`, or null when a webhook may reach it. */
export function forbiddenRange(ip: string, rules: UrlRules): string | null {
  if (!ipaddr.isValid(ip)) return 'invalid';
  const a = ipaddr.process(ip);
  const range = a.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && rules.allowLoopback) return null;
  return range;
}

/** The URL's host as a bare name or address (IPv6 literals lose their brackets). */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Parses and checks everything but the addresses; throws UrlRefused. */
export function parseWebhookUrl(raw: string, rules: UrlRules): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('invalid_url', 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) {
    throw new UrlRefused('scheme', rules.allowHttp ? 'the URL must be http or https' : 'the URL must be https');
  }
  if (url.username || url.password) throw new UrlRefused('credentials', 'the URL must not carry credentials (user:password@)');
  if (!hostOf(url)) throw new UrlRefused('invalid_url', 'the URL has no host');
  return url;
}

function judge(addresses: readonly string[], rules: UrlRules, host: string): void {
  for (const a of addresses) {
    const range = forbiddenRange(a, rules);
    if (range) throw new UrlRefused('forbidden_address', `${host} resolves to ${a} (${range}); only public addresses are allowed`, a);
  }
}

/**
 * Registration: the URL's rules, then every address its host resolves to now, if the resolver
 * answers within `lookupTimeoutMs`. A resolver that does not answer in time never holds the
 * request: the URL is taken and its host judged when delivery connects (`guardedLookup`, on
 * every connection anyway), where a forbidden address is refused and an unresolvable host is a
 * `network_error` attempt. Only an answer refuses here: no such host, or a forbidden address.
 */
export async function checkWebhookUrl(raw: string, rules: UrlRules, lookupTimeoutMs: number): Promise<URL> {
  const url = parseWebhookUrl(raw, rules);
  const host = hostOf(url);
  if (net.isIP(host)) {
    judge([host], rules, host);
    return url;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), lookupTimeoutMs);
  });
  let found: dns.LookupAddress[] | 'late';
  try {
    found = await Promise.race([dns.promises.lookup(host, { all: true, verbatim: true }), late]);
  } catch {
    throw new UrlRefused('unresolvable', `${host} does not resolve`);
  } finally {
    clearTimeout(timer);
  }
  if (found === 'late') return url;
  if (!found.length) throw new UrlRefused('unresolvable', `${host} does not resolve`);
  judge(found.map((f) => f.address), rules, host);
  return url;
}

/** Delivery: an IP-literal host is never looked up by the socket, so it is judged here. */
export function checkLiteralHost(url: URL, rules: UrlRules): void {
  const host = hostOf(url);
  if (net.isIP(host)) judge([host], rules, host);
}

/**
 * A `lookup` for the delivery agent's sockets: resolves like Node's own, then refuses the
 * connection when any address is forbidden. The addresses judged are the ones connected to.
 */
export function guardedLookup(rules: UrlRules): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      try {
        judge(addresses.map((a) => a.address), rules, hostname);
      } catch (e) {
        return callback(e as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
