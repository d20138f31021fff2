/**
 * Turning cart lines into the listings a quote sells, in line order.
 *
 * A listing is fillable when it is `active`, not past its marketplace expiry, still holds the
 * seller's signed half, and no settlement claims its outpoint. The caller's own listings are
 * never sold to the caller: a `{listing_id}` line naming one is skipped (reported in
 * `skipped_own_listings`), an `{asset, quantity}` line never picks one; when nothing but the
 * caller's own listings remains, 409 self_trade with `own_listings`.
 *
 * Refusals: an unknown listing id 404 not_found (`listing_id`); a listing that exists but is not
 * fillable 409 state_changed (`listing_id`, `state`); an asset line with fewer fillable units
 * than asked 409 state_changed (`asset`, `available`, `requested`): a cart never silently buys
 * fewer units or another asset than it named.
 */
import { ApiError } from '../../http/errors.js';
import type { SettlementJournal } from '../../settlement/journal.js';
import { listingState } from '../listings/index.js';
import type { ListingRow } from '../listings/index.js';
import type { CartLine } from './rules.js';
import type { CheckoutStore } from './store.js';

export interface ResolvedCart {
  /** The listings to sell, in line order (an asset line's picks cheapest first). */
  listings: ListingRow[];
  /** `{listing_id}` lines skipped because the caller sells them. */
  skippedOwn: string[];
}

export async function resolveCart(
  store: CheckoutStore,
  journal: SettlementJournal,
  caller: string,
  lines: CartLine[],
  now: number,
): Promise<ResolvedCart> {
  const named = lines.flatMap((l) => ('listing_id' in l ? [l.listing_id] : []));
  const rows = new Map((await store.listings(named)).map((l) => [l.id, l]));
  const claimed = await journal.claimed(store.db, [...rows.values()].map((l) => l.utxo_outpoint));

  const skippedOwn: string[] = [];
  const ownByAsset: string[] = [];
  const short: { asset: string; available: number; requested: number }[] = [];
  const picked = new Set<string>(named);
  const out: ListingRow[] = [];

  for (const [index, line] of lines.entries()) {
    if ('listing_id' in line) {
      const l = rows.get(line.listing_id);
      if (!l) throw new ApiError('not_found', `No such listing ${line.listing_id}`, { listing_id: line.listing_id, field: `body.lines[${index}]` });
      if (l.seller === caller) {
        skippedOwn.push(l.id);
        continue;
      }
      const state = listingState(l, now);
      if (state.state !== 'active' || !l.signed_psbt || claimed.has(l.utxo_outpoint)) {
        const shown = state.state === 'active' ? 'reserved' : state.state;
        throw new ApiError('state_changed', `listing ${l.id} is ${shown}${state.end_reason ? ` (${state.end_reason})` : ''}, not fillable`, {
          listing_id: l.id,
          state: shown,
          field: `body.lines[${index}]`,
        });
      }
      // A reprice between the buyer's read and this quote is the market moving, not a bad PSBT:
      // say so as state_changed here rather than leave the wallet to refuse the quote unsigned.
      if (line.max_price_sats !== undefined && l.price_sats > line.max_price_sats) {
        throw new ApiError('state_changed', `listing ${l.id} is now priced ${l.price_sats} sats, above the ${line.max_price_sats} asked`, {
          listing_id: l.id,
          state: 'repriced',
          price_sats: l.price_sats,
          max_price_sats: line.max_price_sats,
          field: `body.lines.${index}.max_price_sats`,
        });
      }
      out.push(l);
      continue;
    }
    const others = await store.fillableOf(line.asset, caller, false, now, [...picked], line.quantity);
    for (const l of others) picked.add(l.id);
    out.push(...others);
    if (others.length < line.quantity) {
      short.push({ asset: line.asset, available: others.length, requested: line.quantity });
      const own = await store.fillableOf(line.asset, caller, true, now, [...picked], line.quantity);
      ownByAsset.push(...own.map((l) => l.id));
    }
  }

  if (out.length === 0 && skippedOwn.length + ownByAsset.length > 0) {
    throw new ApiError('self_trade', 'only listings sold by the caller remain in this cart; an address cannot buy its own listings', {
      own_listings: [...skippedOwn, ...ownByAsset],
    });
  }
  const first = short[0];
  if (first) {
    throw new ApiError('state_changed', `only ${first.available} fillable unit(s) of ${first.asset} are listed by others, ${first.requested} asked`, {
      asset: first.asset,
      available: first.available,
      requested: first.requested,
      ...(ownByAsset.length ? { own_listings: ownByAsset } : {}),
    });
  }
  return { listings: out, skippedOwn };
}
