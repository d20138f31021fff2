/**
 * One vocabulary: a flow's input uses the API's names (snake_case: `asset_utxo`,
 * `target_outpoint`, `delivery_mode`, …); the client's own bounds are camelCase (`maxSpendSats`,
 * `maxFeeSats`) and `progress` rides in the same object. A field the flow does not know is
 * refused before anything is sent — `invalid_request` naming the field the caller wrote (and the
 * API's name when it is a name the client once used) — never silently ignored.
 */
import { MarketError } from './errors.js';

/** Every key of T, each marked: a missing or extra key is a compile error where a flow declares its fields. */
export type Fields<T> = { readonly [K in keyof Required<T>]: true };

/** Names earlier versions of the client took, and the API's name for each. */
const RENAMED: Record<string, string> = {
  unit: 'asset_utxo',
  outpoint: 'target_outpoint',
  delivery: 'delivery_mode and delivery_address',
  minNetSats: 'seller_min_net_sats',
};

export function checkFields(flow: string, input: unknown, allowed: Record<string, true>, path = ''): void {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new MarketError('invalid_request', `${flow}: ${path || 'its argument'} must be an object`, null, { field: path || flow });
  }
  for (const key of Object.keys(input)) {
    if (allowed[key]) continue;
    const field = path ? `${path}.${key}` : key;
    const hint = RENAMED[key] && !path ? ` (the API's name is ${RENAMED[key]})` : '';
    throw new MarketError('invalid_request', `${flow}: unknown field ${field}${hint}`, null, { field });
  }
}

/** A flow called with a second argument: options go in the first object (`progress` included). */
export function noSecondArgument(flow: string, extra: unknown): void {
  if (extra !== undefined) throw new MarketError('invalid_request', `${flow}: pass options (progress included) in its one object, not as a second argument`, null, { field: 'progress' });
}
