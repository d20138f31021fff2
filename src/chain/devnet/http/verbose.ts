/**
 * `verbose=true` as Counterparty Core v11 applies it (lib/api/verbose.py, inject_details): a row
 * (or an event's `params`) naming an `asset` and no `divisible` gets the asset's `asset_info`; a
 * `block_index` gets its `block_time`; quantities get a `*_normalized` decimal text (8 places for
 * divisible amounts, whole units otherwise). Without it, rows are Core's bare rows.
 */
import type { Devnet } from '../devnet.js';

/** The quantity fields the devnet's rows carry, and whether each follows its asset's divisibility or is always BTC/XCP-divisible. */
const QUANTITIES: Record<string, 'asset' | 'divisible'> = {
  quantity: 'asset', supply: 'asset', escrow_quantity: 'asset', dispense_quantity: 'asset', give_quantity: 'asset', get_quantity: 'asset',
  give_remaining: 'asset', get_remaining: 'asset', btc_amount: 'divisible', fee_paid: 'divisible', fee: 'divisible',
};

const TIME_FIELDS = ['block_index', 'first_issuance_block_index', 'last_issuance_block_index'] as const;

function normalized(raw: unknown, divisible: boolean): string | undefined {
  if (typeof raw !== 'number' && typeof raw !== 'string' && typeof raw !== 'bigint') return undefined;
  if (!/^-?\d+$/.test(String(raw))) return undefined;
  const q = BigInt(raw);
  if (!divisible) return q.toString();
  const neg = q < 0n;
  const abs = neg ? -q : q;
  return `${neg ? '-' : ''}${abs / 100_000_000n}.${(abs % 100_000_000n).toString().padStart(8, '0')}`;
}

function assetInfo(d: Devnet, asset: string) {
  const a = d.state.ledger.resolveAsset(asset);
  if (!a) return null;
  const xcp = a.asset === 'XCP';
  return {
    asset_longname: a.asset_longname,
    description: xcp ? 'The Counterparty protocol native currency' : a.description,
    issuer: a.issuer,
    divisible: a.divisible,
    locked: a.locked,
    owner: a.owner,
  };
}

function enrich(d: Devnet, item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...item };
  for (const f of TIME_FIELDS) {
    const h = out[f];
    if (typeof h === 'number' && h > 0) {
      const block = d.state.chain.block(h);
      if (block) out[f.replace('index', 'time')] = block.time;
    }
  }
  let divisible = typeof out.divisible === 'boolean' ? out.divisible : true;
  if (typeof out.asset === 'string' && !('divisible' in out)) {
    const info = assetInfo(d, out.asset);
    if (info) {
      out.asset_info = info;
      divisible = info.divisible;
    }
  }
  for (const [k, kind] of Object.entries(QUANTITIES)) {
    if (!(k in out)) continue;
    const n = normalized(out[k], kind === 'divisible' ? true : divisible);
    if (n !== undefined) out[`${k}_normalized`] = n;
  }
  return out;
}

/** A result (row, list of rows, or scalar) with Core's verbose details added. */
export function verboseResult(d: Devnet, result: unknown): unknown {
  if (Array.isArray(result)) return result.map((r) => verboseResult(d, r));
  if (typeof result !== 'object' || result === null) return result;
  const row = enrich(d, result as Record<string, unknown>);
  if (typeof row.params === 'object' && row.params !== null && !Array.isArray(row.params)) row.params = enrich(d, row.params as Record<string, unknown>);
  return row;
}

/**
 * A plain (non-verbose) event row: Core's `messages` rows carry no block time, and an event's
 * params carry one only where the event itself records it (NEW_BLOCK); verbose adds the rest.
 */
export function plainEvent<T extends { event: string; params: Record<string, unknown> }>(row: T & { block_time?: number }): T {
  const { block_time: _t, ...rest } = row;
  if (row.event === 'NEW_BLOCK' || !('block_time' in row.params)) return rest as unknown as T;
  const { block_time: _p, ...params } = row.params;
  return { ...rest, params } as unknown as T;
}
