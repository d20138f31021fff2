/**
 * JSON as Counterparty Core writes it: Python's json module prints every
 * integer as a bare literal, 64-bit quantities included. The devnet's views
 * carry quantities above 2^53 as decimal strings (or bigints) so nothing rounds
 * them in JavaScript; here they go back to bare literals, so a client sees the
 * same bytes it would get from Core (and must parse them as carefully).
 */

/** Keys whose integer values are Counterparty quantities (raw units). */
const QUANTITY_KEYS = new Set([
  'quantity',
  'supply',
  'total',
  'fee',
  'fee_paid',
  'btc_amount',
  'give_quantity',
  'get_quantity',
  'give_remaining',
  'get_remaining',
  'escrow_quantity',
  'dispense_quantity',
]);

/** A marker no JSON string from the ledger can contain (a NUL character). */
const MARK = '\u0000int:';
const MARKED = /"\\u0000int:(-?\d+)"/g;

export function coreJson(value: unknown): string {
  const text = JSON.stringify(value, (key, v: unknown) => {
    if (typeof v === 'bigint') return `${MARK}${v.toString()}`;
    if (typeof v === 'string' && QUANTITY_KEYS.has(key) && /^-?\d+$/.test(v)) return `${MARK}${v}`;
    return v;
  });
  return text.replace(MARKED, '$1');
}
