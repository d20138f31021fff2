/**
 * The upkeep a bot does between trades, through the routes the rest of the day never calls:
 * a seller repricing or delisting several listings in one batch (`POST /v1/listings/batch`), and
 * a bidder cancelling several bids at once and reviewing which of its coins they freed
 * (`POST /v1/offer-cancellations`, `…/review`). Each checks what the contract promises of its
 * answer against the market's store at once; what must hold for the rest of the day
 * (`ended_stays_unsold`) is a settled invariant.
 */
import { MarketError, verifyListingPsbt } from '../client/src/index.js';
import type { Trader } from './traders.js';
import type { Rng } from './rng.js';
import { bookListings, skip, type Action, type SimState } from './action-kit.js';

type BatchOutcome = { index: number; listing_id: string; ok: boolean; code?: string; price_sats?: number; version?: number };

/** The trader's own open public listings (its listings read, every state but the open ones left out). */
async function openListings(t: Trader) {
  const rows = (await t.client.http.call('GET /v1/address/{address}/listings', { params: { address: t.address }, query: { limit: 100 } })).result;
  return rows.filter((l) => l.state === 'active');
}

/** The store's rows of these listings (the oracle's read), by id. */
async function storedListings(s: SimState, ids: string[]): Promise<Map<string, Record<string, any>>> {
  if (!ids.length) return new Map();
  const rows = await s.world.withDb((q) => q(`select id, state, end_reason, price_sats, version from listings where id in (${ids.map(() => '?').join(', ')})`, ids));
  return new Map(rows.map((r) => [r.id as string, r]));
}

/**
 * After a batch delist the contract's retry rule holds as after a 409: a read of the book no longer
 * shows a listing the answer said ended. Two more reads a second apart for an instance that has
 * not yet heard of it; a listing still shown then, while the store says it ended, is a stale book.
 */
async function delistedOffBook(s: SimState, t: Trader, listings: Array<{ id: string; asset: string }>): Promise<void> {
  const ids = listings.map((l) => l.id);
  const slugs = [...new Set(listings.map((l) => s.catalog.find((e) => e.asset === l.asset)?.collection).filter((c): c is string => !!c))];
  for (let read = 0; ; read++) {
    const shown = new Set((await Promise.all(slugs.map((slug) => bookListings(t, slug)))).flat().map((l) => l.id));
    const still = ids.filter((id) => shown.has(id));
    if (!still.length) return;
    const ended = [...(await storedListings(s, still)).values()].filter((r) => r.state === 'ended');
    if (!ended.length) return;
    if (read === 2) throw new Error(`batch delist: the book still shows ${ended.map((r) => r.id).join(', ')} ${read} s after the answer said ended, while the store has them ended`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** What the store holds of each `ok` outcome right after the answer: ended (delist), or the answered version at its price (reprice) unless sold or ended since. */
async function checkOutcomes(s: SimState, action: 'reprice' | 'delist', out: BatchOutcome[]): Promise<void> {
  const ok = out.filter((o) => o.ok);
  if (!ok.length) return;
  const rows = await storedListings(s, ok.map((o) => o.listing_id));
  for (const o of ok) {
    const r = rows.get(o.listing_id);
    if (!r) throw new Error(`batch ${action}: ${o.listing_id} answered ok but the store has no such listing`);
    if (action === 'delist' && (r.state !== 'ended' || r.end_reason !== 'owner')) throw new Error(`batch delist: ${o.listing_id} answered ok but the store has it ${r.state} (${r.end_reason ?? 'no reason'})`);
    if (action === 'reprice' && Number(r.version) === o.version && Number(r.price_sats) !== o.price_sats) {
      throw new Error(`batch reprice: ${o.listing_id} answered version ${o.version} at ${o.price_sats} sats, the store has that version at ${r.price_sats}`);
    }
    if (action === 'reprice' && Number(r.version) < o.version!) throw new Error(`batch reprice: ${o.listing_id} answered version ${o.version}, the store has ${r.version}`);
  }
}

export const UPKEEP_ACTIONS: Record<string, { weight: number; run: Action }> = {
  /**
   * A seller reprices or delists 1-4 of its open listings in one batch. Buyers keep buying
   * meanwhile, so an item may answer `ok: false` (state_changed) while the others apply. One batch
   * in ten names another seller's listing too, as a bot with a stale list does: the whole batch must
   * be refused (404 not_found naming it in `refused_listings`) and none of its own listings changed.
   */
  batch_listings: {
    weight: 3,
    run: async (s, t, rng) => {
      const mine = await openListings(t);
      if (!mine.length) return skip('no_listing');
      const picked = rng.sample(mine, rng.int(1, Math.min(4, mine.length)));
      const action = rng.chance(0.5) ? 'reprice' : 'delist';
      if (rng.chance(0.1)) return foreignInBatch(s, t, rng, picked.map((l) => l.id), action);
      if (action === 'delist') {
        const out = (await t.client.http.call('POST /v1/listings/batch', { body: { action: 'delist', listings: picked.map((l) => ({ listing_id: l.id })) } })).result.listings as BatchOutcome[];
        await checkOutcomes(s, 'delist', out);
        await delistedOffBook(s, t, picked.filter((l) => out.some((o) => o.ok && o.listing_id === l.id)));
        return `batch_delisted:${out.filter((o) => o.ok).length}/${out.length}`;
      }
      const prices = picked.map(() => rng.int(6, 300) * 1_000);
      const templates = (await t.client.http.call('POST /v1/listings/batch', { body: { action: 'reprice_preflight', listings: picked.map((l, k) => ({ listing_id: l.id, price_sats: prices[k]! })) } })).result.listings as Array<{
        listing_id: string;
        asset_utxo: { txid: string; vout: number };
        listing: { psbt_hex: string; inputs_to_sign: number[]; price_sats: number };
      }>;
      // A bot signs only what it checked: each template is its own unit paying it the price it asked.
      const signed = await Promise.all(
        templates.map(async (tpl, k) => {
          if (tpl.listing_id !== picked[k]!.id || tpl.listing.price_sats !== prices[k]) throw new Error(`reprice_preflight answered ${tpl.listing_id} at ${tpl.listing.price_sats} for ${picked[k]!.id} at ${prices[k]}`);
          verifyListingPsbt(tpl.listing.psbt_hex, tpl.listing.inputs_to_sign, { seller: t.address, unit: { txid: tpl.asset_utxo.txid, vout: tpl.asset_utxo.vout }, price_sats: prices[k]!, network: 'regtest' });
          return { listing_id: tpl.listing_id, psbt_hex: await t.signer.signPsbt(tpl.listing.psbt_hex, tpl.listing.inputs_to_sign, 'SINGLE|ANYONECANPAY') };
        }),
      );
      const out = (await t.client.http.call('POST /v1/listings/batch', { body: { action: 'reprice', listings: signed } })).result.listings as BatchOutcome[];
      for (const o of out) if (o.ok && o.price_sats !== prices[o.index]) throw new Error(`batch reprice: ${o.listing_id} answered ok at ${o.price_sats} sats, signed at ${prices[o.index]}`);
      await checkOutcomes(s, 'reprice', out);
      return `batch_repriced:${out.filter((o) => o.ok).length}/${out.length}`;
    },
  },

  /**
   * A bidder cancels 1-3 of its active bids in one request, then reviews them: each cancelled bid's
   * funding coin is `stillCommitted` exactly while a live sibling offer or a settlement in flight
   * holds it (read from the store right after, so only a trade landing in between may differ:
   * such a coin is read again).
   */
  cancel_bids: {
    weight: 2,
    run: async (s, t, rng) => {
      const offers = (await t.client.http.call('GET /v1/address/{address}/offers', { params: { address: t.address }, query: { status: 'active' } })).result;
      if (!offers.length) return skip('no_offer');
      const picked = rng.sample(offers, rng.int(1, Math.min(3, offers.length)));
      const outcomes = await t.client.offers.cancelMany(picked.map((o) => o.id));
      const cancelled = outcomes.filter((o) => o.ok).map((o) => o.offer_id);
      const stored = await s.world.withDb((q) => q(`select id, state from offers where id in (${picked.map(() => '?').join(', ')})`, picked.map((o) => o.id)));
      for (const o of outcomes) {
        const row = stored.find((r) => r.id === o.offer_id);
        if (o.ok && row?.state !== 'cancelled') throw new Error(`cancel_bids: ${o.offer_id} answered cancelled, the store has it ${row?.state ?? 'missing'}`);
        if (!o.ok && row?.state === 'cancelled') throw new Error(`cancel_bids: ${o.offer_id} answered ${o.status} (not cancelled) while the store has it cancelled`);
      }
      if (!cancelled.length) return `bids_cancelled:0/${picked.length}`;
      const review = await t.client.offers.review(cancelled);
      for (const c of review.coins) {
        const outpoint = `${c.outpoint.txid}:${c.outpoint.vout}`;
        const committed = () => s.world.withDb(async (q) => {
          const live = await q(`select 1 from offers where bid_txid = ? and bid_vout = ? and state = 'active' and expires_at > ?`, [c.outpoint.txid, c.outpoint.vout, Math.floor(Date.now() / 1000)]);
          const claimed = await q(`select 1 from outpoint_claims where outpoint = ?`, [outpoint]);
          return live.length > 0 || claimed.length > 0;
        });
        if (c.stillCommitted !== (await committed())) {
          await new Promise((r) => setTimeout(r, 500));
          if (c.stillCommitted !== (await committed())) throw new Error(`cancel_bids: the review says ${outpoint} is ${c.stillCommitted ? '' : 'not '}still committed; the store says otherwise`);
        }
      }
      return `bids_cancelled:${cancelled.length}/${picked.length}`;
    },
  },
};

/** The batch with another seller's listing in it: refused whole, 404, that listing named, nothing of the trader's changed. */
async function foreignInBatch(s: SimState, t: Trader, rng: Rng, own: string[], action: 'reprice' | 'delist'): Promise<string> {
  const foreign = (await bookListings(t, rng.pick(s.collections))).filter((l) => l.seller !== t.address);
  if (!foreign.length) return skip('no_foreign_listing');
  const other = rng.pick(foreign).id;
  const ids = rng.sample([...own, other], own.length + 1);
  const before = await storedListings(s, own);
  try {
    const body =
      action === 'delist'
        ? { action: 'delist' as const, listings: ids.map((listing_id) => ({ listing_id })) }
        : { action: 'reprice_preflight' as const, listings: ids.map((listing_id) => ({ listing_id, price_sats: 50_000 })) };
    await t.client.http.call('POST /v1/listings/batch', { body });
  } catch (e) {
    if (!(e instanceof MarketError) || e.code !== 'not_found') throw e;
    const refused = (e.extras.refused_listings ?? []) as Array<{ index: number; listing_id: string }>;
    if (!refused.some((r) => r.listing_id === other && r.index === ids.indexOf(other))) throw new Error(`batch ${action} with ${other} (another seller's) refused without naming it: ${JSON.stringify(refused)}`);
    if (action === 'delist') {
      const after = await storedListings(s, own);
      // Buyers may still take one meanwhile; the refused batch itself ends nothing.
      const ended = [...before.values()].filter((b) => b.state === 'active' && after.get(b.id as string)?.end_reason === 'owner');
      if (ended.length) throw new Error(`batch delist refused 404 but ended ${ended.map((r) => r.id).join(', ')}`);
    }
    return `refused:${e.code}`;
  }
  throw new Error(`batch ${action} naming ${other}, another seller's listing, was not refused`);
}
