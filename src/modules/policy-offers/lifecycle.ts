/**
 * The one owner of the collection-offer state machines (tables.ts): funding sets and their
 * alternatives. Every transition is one guarded UPDATE naming the states it may leave, with the
 * bidder's owner event (`collection_offer_filled`, `_cancelled`, `_expired`, `_retired`). The
 * anchor a set holds follows it (anchors.ts). Each transition appends the public
 * `collection_offer_placed` / `_ended` to the event log too (src/trade/event-rows.ts).
 */
import type { Db, Tx } from '../../store/db.js';
import { eventId } from '../../trade/event-rows.js';
import { recordEvent, retractStoredEvent } from '../../trade/owner-events.js';
import { logOfferEnded, logOfferPlaced, retractPublicEvent } from '../../trade/event-rows.js';
import { freeAnchor, respendAnchor, retireAnchor, spendAnchor, unretireAnchor, unspendAnchor } from './anchors.js';
import type { FundingSetState, PolicyOfferState, PolicyOfferTables } from './tables.js';

export type FundingSetRow = PolicyOfferTables['policy_funding_sets'];
export type PolicyOfferRow = PolicyOfferTables['policy_offers'];

const KIND: Record<'filled' | 'cancelled' | 'expired' | 'retired', string> = {
  filled: 'collection_offer_filled',
  cancelled: 'collection_offer_cancelled',
  expired: 'collection_offer_expired',
  retired: 'collection_offer_retired',
};

function ownerEvent(o: PolicyOfferRow, state: keyof typeof KIND, at: number, extra: Record<string, unknown> & { status?: string; subject?: string; txid?: string | null } = {}) {
  const { status, subject, txid, ...data } = extra;
  return {
    event_id: eventId(KIND[state], subject ?? o.id),
    address: o.bidder,
    role: 'bidder' as const,
    kind: KIND[state],
    at,
    listing_id: null,
    asset: o.asset,
    price_sats: o.price_sats,
    txid: txid ?? null,
    status: status ?? state,
    data: JSON.stringify({ offer_id: o.id, funding_set_id: o.funding_set_id, kind: o.kind, ...(o.collection ? { collection: o.collection } : {}), ...data }),
  };
}

/** The public feed's reason for an alternative's ending (public-store.ts `offerEnded`). */
const publicReason = (to: string, reason: string): 'cancelled' | 'superseded' | 'invalid' | 'expired' =>
  to === 'expired' ? 'expired' : reason === 'cancelled' || reason === 'superseded' ? reason : 'invalid';

async function setState(tx: Tx, id: string, from: readonly FundingSetState[], to: FundingSetState, at: number, extra: Partial<FundingSetRow> = {}): Promise<boolean> {
  const r = await tx.updateTable('policy_funding_sets').set({ ...extra, state: to, updated_at: at }).where('id', '=', id).where('state', 'in', [...from]).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Withdraws a stored owner event (with its retraction in the log); its `at`, or null when there was none. */
async function withdrawEvent(tx: Tx, id: string, at: number): Promise<number | null> {
  const row = await tx.selectFrom('owner_events').select('at').where('event_id', '=', id).executeTakeFirst();
  if (!row) return null;
  await retractStoredEvent(tx, id, at);
  return Number(row.at);
}

/** The retired event of an alternative its funding set's death ended (status invalid; its own id, rule 7). */
const retiredEventId = (offerId: string, reason: string) => eventId(KIND.retired, `${offerId}:${reason}`);

/**
 * Ends the set's alternatives in state `from`. Every event names the set's `parent_txid`. An
 * alternative that was soft-cancelled (or had expired) and now dies on chain has its earlier
 * owner event withdrawn (a retraction in the log) and `collection_offer_retired` with status
 * `invalid` in its place: the feed shows each subject once, with its current status (spec,
 * owner feed rule 7: the one turns into the other under a new event_id).
 */
async function endAlternatives(tx: Tx, set: Pick<FundingSetRow, 'id' | 'parent_txid'>, from: PolicyOfferState, to: 'cancelled' | 'expired' | 'retired', reason: string, at: number, extra: Record<string, unknown> = {}) {
  const rows = await tx.selectFrom('policy_offers').selectAll().where('funding_set_id', '=', set.id).where('state', '=', from).execute();
  for (const o of rows) {
    const r = await tx.updateTable('policy_offers').set({ state: to, end_reason: reason, ended_at: at, updated_at: at }).where('id', '=', o.id).where('state', '=', from).executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) continue;
    logOfferEnded(tx, o, publicReason(to, reason), at);
    // The earlier ending's time goes with the new event, so a reorg that undoes this one can restore it as it was.
    const earlier = from === 'cancelled' || from === 'expired' ? await withdrawEvent(tx, eventId(KIND[from], o.id), at) : null;
    const previously = earlier === null ? {} : { previously_at: earlier };
    await recordEvent(tx, ownerEvent(o, to, at, { end_reason: reason, parent_txid: set.parent_txid, ...extra, ...previously, ...(to === 'retired' && reason !== 'superseded' ? { status: 'invalid', subject: `${o.id}:${reason}` } : {}) }));
  }
  return rows;
}

/** A preflight: the set awaits the bidder's signatures; its anchor is reserved by the caller. */
export async function createFundingSet(tx: Tx, row: FundingSetRow, fundingOutpoints: string[]): Promise<void> {
  await tx.insertInto('policy_funding_sets').values(row).execute();
  await tx.insertInto('policy_funding_inputs').values(fundingOutpoints.map((outpoint) => ({ outpoint, funding_set_id: row.id }))).execute();
}

/** awaiting_signatures → open, with the verified signatures and the alternatives. False when the preflight lapsed or was placed meanwhile. */
export async function placeFundingSet(tx: Tx, set: FundingSetRow, signedParent: string, requestSha256: string, offers: PolicyOfferRow[], at: number): Promise<boolean> {
  if (!(await setState(tx, set.id, ['awaiting_signatures'], 'open', at, { parent_signed_psbt: signedParent, request_sha256: requestSha256 }))) return false;
  for (let i = 0; i < offers.length; i += 100) await tx.insertInto('policy_offers').values(offers.slice(i, i + 100)).execute();
  for (const o of offers) logOfferPlaced(tx, o);
  return true;
}

/**
 * awaiting_signatures → lapsed: never placed (it expired, the bidder released it, or the bidder's
 * next preflight replaced it, holds.ts); the anchor's signature never left, so it is free again at once.
 */
export async function lapseFundingSet(tx: Tx, set: FundingSetRow, at: number, reason: 'preflight_expired' | 'preflight_released' | 'preflight_replaced' = 'preflight_expired'): Promise<boolean> {
  if (!(await setState(tx, set.id, ['awaiting_signatures'], 'lapsed', at, { end_reason: reason }))) return false;
  await freeAnchor(tx, set.anchor_outpoint, set.id, at);
  return true;
}

/**
 * open → filled by the journaled accept: the alternative filled (a collection-scoped one with
 * its public `collection_offer_ended` reason `filled`), its siblings retired (superseded), the
 * anchor spent by the parent. False (the caller rolls back) when the set or
 * the alternative changed meanwhile.
 */
export async function fillFundingSet(tx: Tx, set: FundingSetRow, offer: PolicyOfferRow, acceptId: string, childTxid: string, at: number): Promise<boolean> {
  if (!(await setState(tx, set.id, ['open'], 'filled', at, { accept_id: acceptId }))) return false;
  const r = await tx
    .updateTable('policy_offers')
    .set({ state: 'filled', end_reason: 'filled', filled_txid: childTxid, ended_at: at, updated_at: at })
    .where('id', '=', offer.id)
    .where('state', '=', 'active')
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return false;
  // A collection offer's sale names neither the offer nor its bidder: its ending says `filled`
  // (an asset-scoped alternative's sale is its event, like a listing's).
  if (offer.scope === 'collection') logOfferEnded(tx, offer, 'filled', at);
  await endAlternatives(tx, set, 'active', 'retired', 'superseded', at, { filled_offer_id: offer.id });
  await spendAnchor(tx, set.anchor_outpoint, set.id, at);
  await recordEvent(tx, ownerEvent(offer, 'filled', at, { txid: childTxid, parent_txid: set.parent_txid }));
  return true;
}

/** A seller's accept quote (status quoted; it reserves nothing). */
export async function createAcceptQuote(db: Db, row: PolicyOfferTables['policy_accepts']): Promise<void> {
  await db.insertInto('policy_accepts').values(row).execute();
}

/** quoted → accepted: the accept journaled (in the same transaction). */
export async function markAccepted(tx: Tx, acceptId: string, settlementId: string, listingId: string | null, at: number): Promise<void> {
  await tx.updateTable('policy_accepts').set({ state: 'accepted', settlement_id: settlementId, listing_id: listingId, updated_at: at }).where('id', '=', acceptId).where('state', '=', 'quoted').execute();
}

/**
 * active → cancelled: the signer recorded the soft cancel of this one alternative (`cancelJson`
 * its answer). Its siblings stay live; the set stays open (with its anchor) while any is. False
 * when the alternative had already left `active` (a fill or an expiry won).
 */
export async function cancelAlternative(tx: Tx, set: FundingSetRow, offer: PolicyOfferRow, cancelJson: string, at: number): Promise<boolean> {
  // The set's row first, as a fill takes it (set, then its alternatives): the other order
  // deadlocked an accept racing this cancel on PostgreSQL (a 500 in policy-accept's race test).
  await tx.updateTable('policy_funding_sets').set((eb) => ({ state: eb.ref('state') })).where('id', '=', set.id).execute();
  const r = await tx
    .updateTable('policy_offers')
    .set({ state: 'cancelled', end_reason: 'cancelled', cancel_json: cancelJson, ended_at: at, updated_at: at })
    .where('id', '=', offer.id)
    .where('state', '=', 'active')
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return false;
  logOfferEnded(tx, offer, 'cancelled', at);
  await recordEvent(tx, ownerEvent(offer, 'cancelled', at, { end_reason: 'cancelled', parent_txid: set.parent_txid }));
  await endIfNoneLive(tx, set.id, at);
  return true;
}

/** The set's alternatives' states, and the first signer time of their recorded cancels. */
export async function alternativeStates(tx: Tx | Db, setId: string): Promise<{ states: PolicyOfferState[]; firstCancelAt: number | null }> {
  const rows = await tx.selectFrom('policy_offers').select(['state', 'cancel_json']).where('funding_set_id', '=', setId).execute();
  const times = rows.flatMap((o) => (o.cancel_json ? [(JSON.parse(o.cancel_json) as { recorded_at: number }).recorded_at] : []));
  return { states: rows.map((o) => o.state), firstCancelAt: times.length ? Math.min(...times) : null };
}

/**
 * An open set with no live alternative left ends, its anchor to the next sweep: `cancelled` when
 * every alternative was cancelled (funding_cancelled), else `expired` (some had lapsed first).
 */
async function endIfNoneLive(tx: Tx, setId: string, at: number): Promise<void> {
  const { states, firstCancelAt } = await alternativeStates(tx, setId);
  if (states.includes('active')) return;
  const set = await tx.selectFrom('policy_funding_sets').selectAll().where('id', '=', setId).executeTakeFirst();
  if (!set) return;
  const allCancelled = states.every((st) => st === 'cancelled');
  const ended = allCancelled
    ? await setState(tx, setId, ['open'], 'cancelled', at, { cancel_json: JSON.stringify({ recorded_at: firstCancelAt }), end_reason: 'cancelled' })
    : await setState(tx, setId, ['open'], 'expired', at, { end_reason: 'expired' });
  if (ended) await retireAnchor(tx, set.anchor_outpoint, setId, at);
}

/**
 * A funding input was spent by a transaction that is not our parent (the bidder's hard cancel,
 * or any spend): open | cancelled | expired → invalid. Live alternatives retire; soft-cancelled
 * ones turn from `collection_offer_cancelled` to `collection_offer_retired` with status
 * `invalid` (a new event id).
 */
export async function invalidateFundingSet(tx: Tx, set: FundingSetRow, reason: string, spentTxid: string | null, height: number | null, at: number): Promise<boolean> {
  if (!(await setState(tx, set.id, ['open', 'cancelled', 'expired'], 'invalid', at, { end_reason: reason, spent_txid: spentTxid, spent_height: height }))) return false;
  await endAlternatives(tx, set, 'active', 'retired', reason, at, { spent_txid: spentTxid });
  await endAlternatives(tx, set, 'cancelled', 'retired', reason, at, { spent_txid: spentTxid, previously: 'cancelled' });
  await endAlternatives(tx, set, 'expired', 'retired', reason, at, { spent_txid: spentTxid, previously: 'expired' });
  await retireAnchor(tx, set.anchor_outpoint, set.id, at);
  return true;
}

/**
 * filled → invalid: the package that filled it was released (refused by the node, or an input
 * spent elsewhere). The signer has co-signed that one child and never signs another for this
 * parent, so the set cannot reopen: the bidder places again. The filled alternative retires.
 */
export async function failFilledSet(tx: Tx, set: FundingSetRow, reason: string, at: number): Promise<void> {
  if (!(await setState(tx, set.id, ['filled'], 'invalid', at, { end_reason: reason }))) return;
  await endAlternatives(tx, set, 'filled', 'retired', reason, at);
  await unspendAnchor(tx, set.anchor_outpoint, set.id, at);
}

/**
 * invalid → filled: the chain confirmed the accept whose release failFilledSet had undone (the
 * node refused a package a peer already had, say). The bidder's money bought the unit, so the
 * set is filled again: the alternative the accept filled comes back from its retirement (the
 * retired event withdrawn, its public ending `filled` again) and the anchor is spent.
 */
export async function refillFundingSet(tx: Tx, set: FundingSetRow, offerId: string, at: number): Promise<boolean> {
  const reason = set.end_reason;
  if (!(await setState(tx, set.id, ['invalid'], 'filled', at, { end_reason: null }))) return false;
  const o = await tx.selectFrom('policy_offers').selectAll().where('id', '=', offerId).where('funding_set_id', '=', set.id).executeTakeFirst();
  if (o && o.state === 'retired' && o.end_reason === reason) {
    await tx.updateTable('policy_offers').set({ state: 'filled', end_reason: 'filled', updated_at: at }).where('id', '=', o.id).where('state', '=', 'retired').execute();
    if (reason) await retractStoredEvent(tx, retiredEventId(o.id, reason), at);
    if (o.scope === 'collection') logOfferEnded(tx, o, 'filled', at);
    else retractPublicEvent(tx, eventId('offer_ended', o.id), at);
  }
  await respendAnchor(tx, set.anchor_outpoint, set.id, at);
  return true;
}

/** Alternatives past their market expiry → expired; a set left with none live ends (endIfNoneLive), its anchor to the sweep. */
export async function expireAlternatives(tx: Tx, at: number, limit = 500): Promise<number> {
  const due = await tx.selectFrom('policy_offers').selectAll().where('state', '=', 'active').where('expires_at', '<=', at).limit(limit).execute();
  const sets = new Set<string>();
  for (const o of due) {
    const r = await tx.updateTable('policy_offers').set({ state: 'expired', end_reason: 'expired', ended_at: o.expires_at, updated_at: at }).where('id', '=', o.id).where('state', '=', 'active').executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) continue;
    logOfferEnded(tx, o, 'expired', at);
    await recordEvent(tx, ownerEvent(o, 'expired', Math.min(at, o.expires_at), { expires_at: o.expires_at }));
    sets.add(o.funding_set_id);
  }
  for (const id of sets) await endIfNoneLive(tx, id, at);
  return due.length;
}

/**
 * A disconnected block had spent funding inputs: sets it invalidated come back (open, or
 * cancelled if the bidder had soft-cancelled), their alternatives too, and the retired events
 * go — unless the set's anchor was swept meanwhile (the parent can never be valid again).
 */
export async function restoreFundingSets(tx: Tx, fromHeight: number, at: number): Promise<void> {
  const sets = await tx.selectFrom('policy_funding_sets').selectAll().where('state', '=', 'invalid').where('end_reason', '=', 'funding_spent').where('spent_height', '>=', fromHeight).execute();
  for (const set of sets) {
    const back: FundingSetState = set.cancel_json ? 'cancelled' : 'open';
    if (back === 'open' && !(await unretireAnchor(tx, set.anchor_outpoint, set.id, at))) continue;
    if (!(await setState(tx, set.id, ['invalid'], back, at, { end_reason: set.cancel_json ? 'cancelled' : null, spent_txid: null, spent_height: null }))) continue;
    const retired = await tx.selectFrom('policy_offers').selectAll().where('funding_set_id', '=', set.id).where('state', '=', 'retired').where('end_reason', '=', 'funding_spent').execute();
    for (const o of retired) {
      // A soft-cancelled alternative is cancelled again (its own record; sets cancelled whole before cancels named one, the set's).
      const prev: PolicyOfferState = o.cancel_json || back === 'cancelled' ? 'cancelled' : 'active';
      const id = retiredEventId(o.id, 'funding_spent');
      const stored = await tx.selectFrom('owner_events').select('data').where('event_id', '=', id).executeTakeFirst();
      const cancelledAt = (stored && (JSON.parse(stored.data) as { previously_at?: number }).previously_at) ?? o.ended_at ?? at;
      await tx.updateTable('policy_offers').set({ state: prev, end_reason: prev === 'cancelled' ? 'cancelled' : null, ended_at: prev === 'cancelled' ? cancelledAt : null, updated_at: at }).where('id', '=', o.id).where('state', '=', 'retired').execute();
      await retractStoredEvent(tx, id, at);
      // Back to active: its ending is withdrawn; back to cancelled: the cancellation stands again, in both feeds.
      if (prev === 'active') retractPublicEvent(tx, eventId('offer_ended', o.id), at);
      else {
        logOfferEnded(tx, o, 'cancelled', cancelledAt);
        await recordEvent(tx, ownerEvent(o, 'cancelled', cancelledAt, { end_reason: 'cancelled', parent_txid: set.parent_txid }));
      }
    }
  }
}
