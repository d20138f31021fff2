/**
 * JSON parsing that keeps large integers exact. Counterparty quantities are
 * 64-bit integers written as bare JSON numbers; JSON.parse would round anything
 * above 2^53. Node 20's JSON.parse reviver cannot see the source text, so we
 * quote unsafe integer literals before parsing: they arrive as decimal strings.
 */

/**
 * One token at a time: a whole JSON string (so digits inside strings are never
 * touched) or a whole number literal (so a fraction or exponent is seen with
 * its integer part).
 */
const TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Integer literals longer than this may be unsafe; shorter ones never are. */
const SAFE_DIGITS = 15;

export function parseJsonExact(text: string): unknown {
  let changed = false;
  const quoted = text.replace(TOKEN, (tok) => {
    if (tok.charCodeAt(0) === 34 /* " */) return tok;
    const digits = tok.startsWith('-') ? tok.length - 1 : tok.length;
    if (digits <= SAFE_DIGITS || !/^-?\d+$/.test(tok) || Number.isSafeInteger(Number(tok))) return tok;
    changed = true;
    return `"${tok}"`;
  });
  return JSON.parse(changed ? quoted : text);
}

/**
 * A raw quantity as a canonical decimal string: accepts the quoted form from
 * parseJsonExact, a safe JSON integer, or a decimal string. Null otherwise.
 */
export function rawQuantity(value: unknown): string | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : null;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value).toString();
  if (typeof value === 'bigint') return value.toString();
  return null;
}
