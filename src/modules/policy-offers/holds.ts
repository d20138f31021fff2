/**
 * Bounds on the anchors that unplaced preflights hold. A preflight reserves an anchor for
 * PREFLIGHT_TTL_S (15 minutes) before the bidder has signed anything, so without a bound one
 * stranger with a few small coins could hold the whole pool and every other bidder would get
 * 503 offer_capacity_full (issue 34 item 3). Two bounds, checked in the preflight's transaction
 * under a lock per address and per IP (so concurrent preflights cannot pass them together):
 *
 * - Per address (ANCHOR_HOLDS_PER_ADDRESS, default 2): a bidder's next preflight releases its own
 *   oldest unplaced one (`preflight_replaced`, its anchor free at once). A bidder retrying never
 *   gets stuck behind its own earlier attempts, and never holds more than the bound.
 * - Per IP (ANCHOR_HOLDS_PER_IP, default 4; an IPv6 address counts by its /64): the unplaced
 *   preflights from one IP, whatever addresses signed in, hold at most this many; beyond, the
 *   hoarder is refused (429 rate_limited with Retry-After: until its oldest hold lapses), not
 *   everyone else. Placing, releasing (POST /v1/policy-offers/preflights/{id}/release) or letting
 *   a preflight lapse gives the hold back.
 *
 * The pool itself grows with demand: the upkeep refills it to ANCHOR_POOL_SIZE free-or-pending
 * anchors, so reserved anchors are replaced (anchor-pool.ts).
 */
import type { Context } from '../../context.js';
import type { Tx } from '../../store/db.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, notFound } from '../../http/errors.js';
import { lapseFundingSet, type FundingSetRow } from './lifecycle.js';

const unplaced = (tx: Tx, now: number) =>
  tx.selectFrom('policy_funding_sets').selectAll().where('state', '=', 'awaiting_signatures').where('preflight_expires_at', '>', now).orderBy('created_at').orderBy('id');

/** Runs `fn` (the preflight's anchor reservation) holding the address's and the IP's locks, always in that order. */
export function underHoldLocks<T>(ctx: Context, bidder: string, ip: string, fn: () => Promise<T>): Promise<T> {
  return ctx.store.locks.run(`policy-holds:address:${bidder}`, () => ctx.store.locks.run(`policy-holds:ip:${ip}`, fn));
}

/**
 * Makes room for one more hold of `bidder` from `ip`, inside the preflight's transaction (a
 * refusal rolls back the releases too): releases the bidder's oldest unplaced preflights past
 * its bound, then refuses when the IP's holds are at theirs.
 */
export async function makeRoomForHold(ctx: Context, tx: Tx, bidder: string, ip: string, now: number): Promise<void> {
  const own = await unplaced(tx, now).where('bidder', '=', bidder).execute();
  const over = own.length - ctx.config.ANCHOR_HOLDS_PER_ADDRESS + 1;
  for (const set of own.slice(0, Math.max(0, over))) await lapseFundingSet(tx, set as FundingSetRow, now, 'preflight_replaced');
  const fromIp = await unplaced(tx, now).where('preflight_ip', '=', ip).execute();
  if (fromIp.length >= ctx.config.ANCHOR_HOLDS_PER_IP) {
    const wait = Math.max(1, Number(fromIp[0]!.preflight_expires_at) - now);
    throw new ApiError(
      'rate_limited',
      `unplaced collection-offer preflights from this IP already hold ${fromIp.length} anchors (at most ${ctx.config.ANCHOR_HOLDS_PER_IP}); place or release one, or wait until one lapses`,
      { retry_after_seconds: wait, reason: 'anchor_holds_per_ip', limit: ctx.config.ANCHOR_HOLDS_PER_IP },
      { headers: { 'Retry-After': String(wait) } },
    );
  }
}

/**
 * The bidder gives an unplaced preflight back: its anchor is free at once (one guarded UPDATE,
 * lifecycle.ts). Again on a released or lapsed one: `released: false`, nothing changes. A
 * placed one is 409 state_changed (cancel it instead); another's or a missing id, 404.
 */
export async function releasePreflight(ctx: Context, bidder: string, id: string): Promise<{ funding_set_id: string; state: 'lapsed'; released: boolean }> {
  const set = await ctx.store.db.selectFrom('policy_funding_sets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!set || set.bidder !== bidder) throw notFound('collection-offer preflight');
  const released = await ctx.store.db.transaction().execute((tx) => lapseFundingSet(tx, set, nowSeconds(ctx.clock), 'preflight_released'));
  if (released || set.state === 'lapsed') return { funding_set_id: id, state: 'lapsed', released };
  throw new ApiError('state_changed', `the funding set is ${set.state}: only an unplaced preflight can be released (cancel a placed offer instead)`, { state: set.state });
}
