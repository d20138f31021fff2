/**
 * What the request log may say about a URL. The API reads no credential from a query string
 * (the session travels in `x-session-token`), but a client may still put one there, and the
 * log records the URL as sent: the value of every query parameter whose name looks like a
 * credential is replaced before it is written. The path and the other parameters stay, so a
 * log line still tells which read it was.
 */
import type { FastifyRequest } from 'fastify';

/** Names that carry secrets in the wild: session and API tokens, keys, passwords, signatures, seeds. */
const SECRET_NAME = /token|session|secret|passw|pwd|api[-_]?key|access[-_]?key|private|auth|bearer|jwt|cookie|credential|signature|mnemonic|seed|otp/i;
export const REDACTED = '[redacted]';

/** The URL with every credential-looking query value replaced (names and order kept). */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return url;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const raw = eq < 0 ? pair : pair.slice(0, eq);
    let name = raw;
    try {
      name = decodeURIComponent(raw.replace(/\+/g, ' '));
    } catch {
      // A malformed escape: judge the name as sent.
    }
    return eq >= 0 && SECRET_NAME.test(name) ? `${raw}=${REDACTED}` : pair;
  });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

/**
 * Fastify's own `req` log serializer (lib/logger-pino.js), with the URL redacted. A logger
 * instance's serializers replace Fastify's, so every request line goes through this one.
 */
export function requestLogValue(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
