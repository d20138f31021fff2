/**
 * Taking back what a party offered, as a bot does when it changes its mind: a bidder cancels one
 * of its exact authorizations (`POST /v1/exact-offer-authorizations/{id}/cancel`) while sellers may
 * be accepting it, and a seller withdraws one of its counters (`POST /v1/counters/{id}/withdraw`)
 * while the bidder may be taking it; a seller moves the unit of a listing whose signed half went
 * public (`exposed`) to void that half (`POST /v1/listings/{id}/rotation`, then `…/signed`). Each
 * answer is held to the market's store at once, and the other party's read must stop offering what
 * was taken back (within the two seconds an instance that has not heard of it may take, as after a
 * 409). Once settled, `rotated_listing_ends` (sim/invariants.ts) holds every confirmed rotation's
 * listing ended `rotated`.
 */
import { MarketError } from '../client/src/index.js';
import type { Trader } from './traders.js';
import { now, skip, type Action, type SimState } from './action-kit.js';

/** The answer: done (200), or 409 state_changed (a race lost); anything else is the action's error. */
async function answered(call: () => Promise<unknown>): Promise<'done' | 'state_changed'> {
  try {
    await call();
    return 'done';
  } catch (e) {
    if (e instanceof MarketError && e.code === 'state_changed') return 'state_changed';
    throw e;
  }
}

/** Reads `shows` up to three times a second apart; throws `what` if it still shows the subject then. */
async function goneWithin(shows: () => Promise<boolean>, what: string): Promise<void> {
  for (let read = 0; ; read++) {
    if (!(await shows())) return;
    if (read === 2) throw new Error(what);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

const traderAt = (s: SimState, address: string): Trader | undefined => s.traders.find((x) => x.address === address);

export const WITHDRAW_ACTIONS: Record<string, { weight: number; run: Action }> = {
  /**
   * A bidder cancels one of its live exact authorizations. 200: the store has it retired
   * (`cancelled`) and the seller's inbox stops showing it. 409 state_changed: the store has it used
   * (a seller's accept won) or retired, or its market expiry passed.
   */
  cancel_authorization: {
    weight: 2,
    run: async (s, t, rng) => {
      const mine = (await t.client.http.call('GET /v1/address/{address}/exact-authorizations', { params: { address: t.address }, query: { limit: 100 } })).result.filter(
        (a) => a.status === 'active' || a.status === 'awaiting_bidder',
      );
      if (!mine.length) return skip('no_authorization');
      const a = rng.pick(mine);
      const outcome = await answered(() => t.client.http.call('POST /v1/exact-offer-authorizations/{id}/cancel', { params: { id: a.authorization_id } }));
      const [row] = await s.world.withDb((q) => q(`select state, end_reason, seller, expires_at from exact_authorizations where id = ?`, [a.authorization_id]));
      if (!row) throw new Error(`cancel_authorization: ${a.authorization_id} is not in the store`);
      if (outcome === 'done' && !(row.state === 'retired' && row.end_reason === 'cancelled')) {
        throw new Error(`cancel_authorization: ${a.authorization_id} answered cancelled, the store has it ${row.state} (${row.end_reason ?? 'no reason'})`);
      }
      if (outcome === 'state_changed' && (row.state === 'active' || row.state === 'awaiting_bidder') && Number(row.expires_at) > now()) {
        throw new Error(`cancel_authorization: ${a.authorization_id} refused state_changed while the store has it ${row.state}`);
      }
      const seller = outcome === 'done' ? traderAt(s, row.seller as string) : undefined;
      if (seller) {
        await seller.ensureSignedIn();
        await goneWithin(
          async () => (await seller.client.http.call('GET /v1/address/{address}/exact-offers', { params: { address: seller.address } })).result.some((x) => x.authorization_id === a.authorization_id),
          `cancel_authorization: the seller's inbox still offers ${a.authorization_id} 2 s after its bidder cancelled it`,
        );
      }
      return outcome === 'done' ? `authorization_cancelled:${a.status}` : 'authorization_cancel_refused';
    },
  },

  /**
   * A seller rotates the unit of one of its exposed listings (a checkout carried its signed half
   * to the network and failed): signed ALL by the seller's wallet after the client checks the move
   * is its own. 200: the store journals a `rotation` of that listing under the answered txid. 409
   * state_changed / conflict_spend: the unit was spent meanwhile (a sniper's copy of the half, or
   * the failed checkout itself) or the listing left `exposed`.
   */
  rotate_exposed: {
    weight: 3,
    run: async (s, t, rng) => {
      const exposed = (await t.client.http.call('GET /v1/address/{address}/listings', { params: { address: t.address }, query: { state: 'exposed', limit: 100 } })).result;
      if (!exposed.length) return skip('no_exposed_listing');
      const l = rng.pick(exposed);
      let sent;
      try {
        sent = await t.client.rotate({ listing_id: l.id, asset_utxo: l.asset_utxo, maxFeeSats: 20_000 });
      } catch (e) {
        if (e instanceof MarketError && (e.code === 'state_changed' || e.code === 'conflict_spend' || e.code === 'insufficient_funds')) {
          return `rotation_refused:${e.code}:${String(e.extras.mempool_reason ?? e.message).slice(0, 60)}`;
        }
        throw e;
      }
      const [row] = await s.world.withDb((q) => q(`select state from settlements where kind = 'rotation' and ref_id = ? and txid = ?`, [l.id, sent.txid]));
      if (!row) throw new Error(`rotate_exposed: ${l.id} answered broadcast as ${sent.txid}, the journal has no such rotation`);
      return 'rotated';
    },
  },

  /**
   * A seller withdraws one of the counters it made. 200: the store has it withdrawn and the
   * bidder's counters read stops showing it. 409 state_changed: the store has it taken (the
   * bidder's placement won), retired (the unit moved) or withdrawn, or it expired.
   */
  withdraw_counter: {
    weight: 2,
    run: async (s, t, rng) => {
      if (!t.madeCounters.length) return skip('no_counter_made');
      const id = t.madeCounters.splice(rng.int(0, t.madeCounters.length - 1), 1)[0]!;
      const outcome = await answered(() => t.client.http.call('POST /v1/counters/{id}/withdraw', { params: { id } }));
      const [row] = await s.world.withDb((q) => q(`select state, bidder, expires_at from offer_counters where id = ?`, [id]));
      if (!row) throw new Error(`withdraw_counter: ${id} is not in the store`);
      if (outcome === 'done' && row.state !== 'withdrawn') throw new Error(`withdraw_counter: ${id} answered withdrawn, the store has it ${row.state}`);
      if (outcome === 'state_changed' && row.state === 'active' && Number(row.expires_at) > now()) throw new Error(`withdraw_counter: ${id} refused state_changed while the store has it active`);
      const bidder = outcome === 'done' ? traderAt(s, row.bidder as string) : undefined;
      if (bidder) {
        await bidder.ensureSignedIn();
        await goneWithin(async () => {
          for await (const c of bidder.client.counters()) if (c.id === id) return true;
          return false;
        }, `withdraw_counter: the bidder still reads counter ${id} 2 s after its seller withdrew it`);
      }
      return outcome === 'done' ? 'counter_withdrawn' : `counter_withdraw_refused:${row.state}`;
    },
  },
};
