/**
 * The sign-in text. It names the market, the address, the origin it is bound
 * to and its times, and says plainly that signing it authorizes no spending.
 * Clients sign it byte for byte as returned (newlines included).
 */
export interface SignInFields {
  domain: string;
  address: string;
  uri: string;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
}

const iso = (s: number) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');

export function signInMessage(f: SignInFields): string {
  return [
    `${f.domain} wants you to sign in with your Bitcoin account:`,
    f.address,
    '',
    'Sign in to the Counterparty collectibles marketplace. This signature does not authorize any spending.',
    '',
    `URI: ${f.uri}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${iso(f.issuedAt)}`,
    `Expiration Time: ${iso(f.expiresAt)}`,
  ].join('\n');
}

export interface ParsedProof {
  address: string;
  uri: string;
  issuedAt: number;
}

/**
 * Reads a connect-time proof written by a browser wallet in the same format
 * (the address on line 2, `URI:` and `Issued At:` lines). Returns null when
 * the text is not in that shape.
 */
export function parseSignInMessage(text: string): ParsedProof | null {
  const lines = text.split('\n');
  if (lines.length < 4 || !/ wants you to sign in with your Bitcoin account:$/.test(lines[0] ?? '')) return null;
  const address = (lines[1] ?? '').trim();
  const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2).trim();
  const uri = field('URI');
  const issued = field('Issued At');
  if (!address || !uri || !issued) return null;
  const ms = Date.parse(issued);
  if (!Number.isFinite(ms)) return null;
  return { address, uri, issuedAt: Math.floor(ms / 1000) };
}

/** `https://example.com/path` → `https://example.com`. */
export function originOf(uri: string): string | null {
  try {
    const u = new URL(uri);
    return `${u.protocol}//${u.host}`;
  } catch {
    return null;
  }
}
