/**
 * The one owner of the offer state machine (see tables.ts for the states). Every
 * change of an offer's `state` or a slot's `state` goes through a function here:
 * one guarded UPDATE naming the states it may leave, and the owner event the spec
 * names for it (offer_cancelled, offer_expired, offer_retired; offer_accepted and
 * offer_consumed_by_counter with the flows that fill or consume).
 *
 * Public events (offer_placed, offer_ended) are derived from the rows by the feeds; each
 * transition appends them to the event log too (src/trade/event-rows.ts), public offers only
 * (an exact-unit offer is private).
 */
import { SqliteAdapter } from 'kysely';
import type { Tx } from '../../store/db.js';
import { eventId } from '../../trade/event-rows.js';
import { recordEvent, retractStoredEvent } from '../../trade/owner-events.js';
import { logOfferEnded, logOfferPlaced, retractPublicEvent } from '../../trade/event-rows.js';
import type { OfferEndReason, OfferState, OfferTables } from './tables.js';
import { retireAuthorizations } from './authorizations.js';

type OfferRow = OfferTables['offers'];
type SlotRow = OfferTables['offer_slots'];

/** Placement: the slots and their offers, all in the caller's transaction. False when an outpoint already backs open offers. */
export async function createPlacement(tx: Tx, placement: OfferTables['offer_placements'], slots: SlotRow[], offers: OfferRow[]): Promise<void> {
  await tx.insertInto('offer_placements').values(placement).execute();
  await tx.insertInto('offer_slots').values(slots).execute();
  for (let i = 0; i < offers.length; i += 200) await tx.insertInto('offers').values(offers.slice(i, i + 200)).execute();
  for (const o of offers) if (o.target_txid === null) logOfferPlaced(tx, o);
}

/**
 * A public collection-scoped offer's fill is also its `collection_offer_ended` (reason `filled`):
 * its sale names neither the offer nor its bidder. An asset-scoped offer's sale is its event.
 */
const filledPublicly = (o: OfferRow) => o.scope === 'collection' && o.target_txid === null;

/** The public feed's reason for an ending (public-store.ts `offerEnded`); a fill's is `filled`, collection scope only (fillOffer). */
const PUBLIC_REASON: Partial<Record<OfferEndReason, 'cancelled' | 'superseded' | 'invalid' | 'expired'>> = {
  cancelled: 'cancelled',
  consumed: 'cancelled',
  superseded: 'superseded',
  invalid: 'invalid',
  expired: 'expired',
};

function logEnded(tx: Tx, o: OfferRow, reason: OfferEndReason, at: number): void {
  const r = PUBLIC_REASON[reason];
  if (r && o.target_txid === null) logOfferEnded(tx, o, r, at);
}

/** A reorg or a release brought an ended offer back: its owner event and public ending are withdrawn. */
async function retractEnding(tx: Tx, o: OfferRow, kind: string, at: number): Promise<void> {
  await retractStoredEvent(tx, eventId(kind, o.id), at);
  if (o.target_txid === null) retractPublicEvent(tx, eventId('offer_ended', o.id), at);
}

/** Owner event kinds of the endings (the feed's bidder kinds). */
const END_EVENT: Partial<Record<OfferEndReason, string>> = {
  cancelled: 'offer_cancelled',
  expired: 'offer_expired',
  superseded: 'offer_retired',
  invalid: 'offer_retired',
  consumed: 'offer_consumed_by_counter',
};

const END_STATE: Record<OfferEndReason, OfferState> = {
  cancelled: 'cancelled',
  expired: 'expired',
  superseded: 'retired',
  invalid: 'retired',
  filled: 'filled',
  consumed: 'consumed',
};

/**
 * active → the ending of `reason`, with its owner event. Returns the offers that
 * actually ended (a lost race ends nothing). The slot closes when its last open
 * offer ends without a spend, so its outpoint may back a new placement.
 */
export async function endOffers(tx: Tx, offers: OfferRow[], reason: OfferEndReason, at: number): Promise<OfferRow[]> {
  const ended: OfferRow[] = [];
  // The slots' rows first, then the offers', each in id order: the order of every fill
  // (fillOffer) and every spend (spendSlot). Ending the offers first and then closing their slot
  // closed a cycle with an accept over the same slot (day 9161: a cancel aborted as a deadlock's
  // victim). SQLite has one writer at a time and takes no row locks.
  await lockSlots(tx, [...new Set(offers.map((o) => o.slot_id))]);
  for (const o of [...offers].sort((a, b) => a.id.localeCompare(b.id))) {
    const res = await tx
      .updateTable('offers')
      .set({ state: END_STATE[reason], end_reason: reason, ended_at: reason === 'expired' ? Math.min(at, o.expires_at) : at, updated_at: at })
      .where('id', '=', o.id)
      .where('state', '=', 'active')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) continue;
    ended.push(o);
    logEnded(tx, o, reason, at);
    const kind = END_EVENT[reason];
    if (kind) await recordEvent(tx, ownerEvent(o, kind, reason === 'expired' ? Math.min(at, o.expires_at) : at, END_STATE[reason], reason));
  }
  for (const slotId of new Set(ended.map((o) => o.slot_id))) await closeSlotIfIdle(tx, slotId, at);
  await retireAuthorizationsOf(tx, ended.map((o) => o.id), reason === 'cancelled' ? 'cancelled' : 'offer_ended', at);
  return ended;
}

/** PostgreSQL: the slots' rows locked, in id order, for the rest of the transaction. */
async function lockSlots(tx: Tx, slotIds: string[]): Promise<void> {
  if (!slotIds.length || tx.getExecutor().adapter instanceof SqliteAdapter) return;
  await tx.selectFrom('offer_slots').select('id').where('id', 'in', [...slotIds].sort()).orderBy('id').forUpdate().execute();
}

/** An offer that ended takes its exact authorizations with it. */
async function retireAuthorizationsOf(tx: Tx, offerIds: string[], reason: string, at: number): Promise<void> {
  for (let i = 0; i < offerIds.length; i += 500) {
    const part = offerIds.slice(i, i + 500);
    if (!part.length) continue;
    const auths = await tx.selectFrom('exact_authorizations').selectAll().where('offer_id', 'in', part).where('state', 'in', ['awaiting_bidder', 'active']).execute();
    if (auths.length) await retireAuthorizations(tx, auths, reason, at);
  }
}

/**
 * active → filled by a journaled settlement (`txid`): the slot is spent by it, and every other
 * active offer over the slot retires (reason superseded); a collection-scoped one's public
 * `collection_offer_ended` says `filled`. The bidder's offer_accepted waits for the chain: the
 * spec has it appear once the market sees the funding slot spent (seeAcceptSpend, the watcher's
 * cycle), not when the accept is journaled. False (and the caller rolls back) when the slot or
 * the offer changed meanwhile.
 */
export async function fillOffer(tx: Tx, o: OfferRow, txid: string, at: number): Promise<boolean> {
  // The slot first: every fill of the slot (and the accept of a sibling) takes this row lock
  // before any offer row, so two accepts over one slot queue here instead of deadlocking.
  const slot = await tx.updateTable('offer_slots').set({ state: 'spent', spent_txid: txid, spent_height: null, updated_at: at }).where('id', '=', o.slot_id).where('state', '=', 'open').executeTakeFirst();
  if (Number(slot.numUpdatedRows) !== 1) return false;
  const res = await tx.updateTable('offers').set({ state: 'filled', end_reason: 'filled', ended_at: at, updated_at: at }).where('id', '=', o.id).where('state', '=', 'active').where('expires_at', '>', at).executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  const siblings = await tx.selectFrom('offers').selectAll().where('slot_id', '=', o.slot_id).where('state', '=', 'active').execute();
  await endOffers(tx, siblings, 'superseded', at);
  if (filledPublicly(o)) logOfferEnded(tx, o, 'filled', at);
  return true;
}

/**
 * spent (by our accept's parent `spentTxid`, unseen) → seen at `height`: the watcher found the
 * parent in a block, so the bidder's `offer_accepted` appears now, at the block's time, carrying
 * the parent's txid. One guarded UPDATE: a slot already seen, released or spent by another
 * transaction changes nothing.
 */
export async function seeAcceptSpend(tx: Tx, slot: SlotRow, spentTxid: string, height: number, at: number): Promise<void> {
  const res = await tx
    .updateTable('offer_slots')
    .set({ spent_height: height, updated_at: at })
    .where('id', '=', slot.id)
    .where('state', '=', 'spent')
    .where('spent_txid', '=', spentTxid)
    .where('spent_height', 'is', null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return;
  const o = await tx.selectFrom('offers').selectAll().where('slot_id', '=', slot.id).where('state', '=', 'filled').executeTakeFirst();
  if (o) await recordEvent(tx, { ...ownerEvent(o, 'offer_accepted', at, 'filled', 'filled'), txid: spentTxid });
}

/** filled → active: the settlement that filled it was released; its superseded siblings come back and the slot is open again. */
export async function unfillOffer(tx: Tx, offerId: string, txid: string, at: number): Promise<void> {
  const o = await tx.selectFrom('offers').selectAll().where('id', '=', offerId).where('state', '=', 'filled').executeTakeFirst();
  if (!o) return;
  await tx.updateTable('offers').set({ state: 'active', end_reason: null, ended_at: null, updated_at: at }).where('id', '=', o.id).where('state', '=', 'filled').execute();
  await retractStoredEvent(tx, eventId('offer_accepted', o.id), at);
  if (filledPublicly(o)) retractPublicEvent(tx, eventId('offer_ended', o.id), at);
  await tx.updateTable('offer_slots').set({ state: 'open', spent_txid: null, spent_height: null, updated_at: at }).where('id', '=', o.slot_id).where('state', 'in', ['spent', 'closed']).where('spent_txid', '=', txid).execute();
  const superseded = await tx.selectFrom('offers').selectAll().where('slot_id', '=', o.slot_id).where('state', '=', 'retired').where('end_reason', '=', 'superseded').execute();
  for (const s of superseded) {
    await tx.updateTable('offers').set({ state: 'active', end_reason: null, ended_at: null, updated_at: at }).where('id', '=', s.id).where('state', '=', 'retired').execute();
    await retractEnding(tx, s, 'offer_retired', at);
  }
}

/**
 * The chain confirmed a fill the journal had released (journal.ts markConfirmed): whatever the
 * release and the time since did to the offer (active again, then cancelled, expired or retired),
 * the bidder's money bought the unit. The offer → filled (its ending event retracted), its slot →
 * spent by `txid`, and every sibling still active over the slot retires as superseded.
 */
export async function refillOffer(tx: Tx, offerId: string, txid: string, at: number): Promise<void> {
  const o = await tx.selectFrom('offers').selectAll().where('id', '=', offerId).executeTakeFirst();
  if (!o || o.state === 'filled') return;
  await lockSlots(tx, [o.slot_id]);
  await tx.updateTable('offer_slots').set({ state: 'spent', spent_txid: txid, spent_height: null, updated_at: at }).where('id', '=', o.slot_id).where('state', '<>', 'spent').execute();
  const res = await tx.updateTable('offers').set({ state: 'filled', end_reason: 'filled', ended_at: at, updated_at: at }).where('id', '=', o.id).where('state', '=', o.state).executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return;
  const kind = o.end_reason ? END_EVENT[o.end_reason] : undefined;
  if (kind) await retractEnding(tx, o, kind, at);
  const siblings = await tx.selectFrom('offers').selectAll().where('slot_id', '=', o.slot_id).where('state', '=', 'active').execute();
  await endOffers(tx, siblings, 'superseded', at);
  if (filledPublicly(o)) logOfferEnded(tx, o, 'filled', at);
}

/** open → closed once no offer over the slot is active (every one cancelled or expired). */
async function closeSlotIfIdle(tx: Tx, slotId: string, at: number): Promise<void> {
  const live = await tx.selectFrom('offers').select('id').where('slot_id', '=', slotId).where('state', '=', 'active').limit(1).executeTakeFirst();
  if (live) return;
  await tx.updateTable('offer_slots').set({ state: 'closed', updated_at: at }).where('id', '=', slotId).where('state', '=', 'open').execute();
}

/**
 * The slot was spent by a transaction that is no settlement of ours (the bidder moved the
 * money): open|closed → spent, and every active offer over it retires (reason invalid).
 */
export async function spendSlot(tx: Tx, slot: SlotRow, spentTxid: string, height: number, at: number): Promise<void> {
  const res = await tx
    .updateTable('offer_slots')
    .set({ state: 'spent', spent_txid: spentTxid, spent_height: height, updated_at: at })
    .where('id', '=', slot.id)
    .where('state', 'in', ['open', 'closed'])
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return;
  const live = await tx.selectFrom('offers').selectAll().where('slot_id', '=', slot.id).where('state', '=', 'active').execute();
  for (const o of live) {
    const r = await tx
      .updateTable('offers')
      .set({ state: 'retired', end_reason: 'invalid', ended_at: at, updated_at: at })
      .where('id', '=', o.id)
      .where('state', '=', 'active')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) continue;
    logEnded(tx, o, 'invalid', at);
    await recordEvent(tx, ownerEvent(o, 'offer_retired', at, 'retired', 'invalid', { spent_txid: spentTxid }));
  }
}

/**
 * A block that spent slots was disconnected: each slot it spent is open again and the offers
 * its spend retired come back (their events go), unless they expired meanwhile (then they
 * end expired, as they would have). A slot our accept's parent spent stays spent (the
 * settlement is in flight again) but unseen: its offer_accepted goes until the parent is mined anew.
 */
export async function unspendSlots(tx: Tx, fromHeight: number, at: number): Promise<void> {
  const slots = await tx.selectFrom('offer_slots').selectAll().where('state', '=', 'spent').where('spent_height', '>=', fromHeight).execute();
  for (const s of slots) {
    const filled = await tx.selectFrom('offers').selectAll().where('slot_id', '=', s.id).where('state', '=', 'filled').executeTakeFirst();
    if (filled) {
      const res = await tx.updateTable('offer_slots').set({ spent_height: null, updated_at: at }).where('id', '=', s.id).where('state', '=', 'spent').where('spent_height', '>=', fromHeight).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) await retractStoredEvent(tx, eventId('offer_accepted', filled.id), at);
      continue;
    }
    const retired = await tx.selectFrom('offers').selectAll().where('slot_id', '=', s.id).where('state', '=', 'retired').where('end_reason', '=', 'invalid').execute();
    const other = await tx.selectFrom('offer_slots').select('id').where('outpoint', '=', s.outpoint).where('state', '=', 'open').executeTakeFirst();
    await tx
      .updateTable('offer_slots')
      .set({ state: retired.length && !other ? 'open' : 'closed', spent_txid: null, spent_height: null, updated_at: at })
      .where('id', '=', s.id)
      .where('state', '=', 'spent')
      .execute();
    if (other) continue;
    for (const o of retired) {
      await tx.updateTable('offers').set({ state: 'active', end_reason: null, ended_at: null, updated_at: at }).where('id', '=', o.id).where('state', '=', 'retired').execute();
      await retractEnding(tx, o, 'offer_retired', at);
    }
    const due = retired.filter((o) => o.expires_at <= at);
    if (due.length) await endOffers(tx, due.map((o) => ({ ...o, state: 'active' as const })), 'expired', at);
  }
}

function ownerEvent(o: OfferRow, kind: string, at: number, status: string, reason: OfferEndReason, extra: Record<string, unknown> = {}) {
  return {
    event_id: eventId(kind, o.id),
    address: o.bidder,
    role: 'bidder' as const,
    kind,
    at,
    listing_id: null,
    asset: o.asset,
    price_sats: o.price_sats,
    txid: null,
    status,
    data: JSON.stringify({
      offer_id: o.id,
      funding_slot_id: o.slot_id,
      ...(o.collection ? { collection: o.collection } : {}),
      end_reason: reason,
      ...(reason === 'expired' ? { expires_at: o.expires_at } : {}),
      ...extra,
    }),
  };
}
