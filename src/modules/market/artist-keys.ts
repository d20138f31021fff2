import crypto from 'node:crypto';

/**
 * Names, keys and ordering of artist credits, shared by the artist and
 * collection reads. All text rules are ASCII-only on purpose: the same input
 * gives the same answer on SQLite and PostgreSQL whatever their collations.
 */

/** Lowercases A–Z only; every other character is left as it is. */
export const asciiLower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** Substring match, ASCII case-insensitive. */
export const asciiIncludes = (haystack: string, needle: string): boolean => asciiLower(haystack).includes(asciiLower(needle));

/** Order of display names: ASCII case-insensitive, then by UTF-16 code unit (so the order is total). */
export function compareNames(a: string, b: string): number {
  const la = asciiLower(a);
  const lb = asciiLower(b);
  if (la !== lb) return la < lb ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** The `letter` bucket of a display name: its first character as A–Z, or `#` for digits, symbols and non A–Z letters. */
export function letterOf(name: string): string {
  const c = name.trimStart().charAt(0);
  return /^[A-Za-z]$/.test(c) ? c.toUpperCase() : '#';
}

/** Prefix of the key of an artist named only by its metadata credit. */
export const CREDIT_PREFIX = '~';

/** `~` + the URL-encoded credit: safe to paste into a path segment as it is. */
export const creditKey = (credit: string): string => CREDIT_PREFIX + encodeURIComponent(credit);

/**
 * What a `~` key can name once the router has decoded the path segment once:
 * the credit itself (a key pasted as returned), or, for a client that encoded
 * the key again, the credit after one more decoding. Exact text first.
 */
export function creditCandidates(key: string): string[] {
  if (!key.startsWith(CREDIT_PREFIX)) return [];
  const raw = key.slice(CREDIT_PREFIX.length);
  if (raw === '') return [];
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    decoded = undefined;
  }
  return decoded !== undefined && decoded !== raw && decoded !== '' ? [raw, decoded] : [raw];
}

/** A short stable fingerprint of a row identity, for cursors that must stay under 200 characters. */
export const fingerprint = (s: string): string => crypto.createHash('sha256').update(s).digest('base64url').slice(0, 10);
