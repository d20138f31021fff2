/**
 * The one owner of the exact-authorization state machine (tables.ts), with the owner events
 * the spec names: exact_authorization_used (the settlement is journaled) and
 * exact_authorization_retired (cancelled, offer ended, an outpoint spent elsewhere).
 */
import type { Tx } from '../../store/db.js';
import { eventId } from '../../trade/event-rows.js';
import { recordEvent, retractStoredEvent } from '../../trade/owner-events.js';
import type { ExactOfferTables } from './authorization-tables.js';

type AuthRow = ExactOfferTables['exact_authorizations'];

const changed = (r: { numUpdatedRows: bigint }) => Number(r.numUpdatedRows) === 1;

export async function createAuthorizations(tx: Tx, rows: AuthRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 50) await tx.insertInto('exact_authorizations').values(rows.slice(i, i + 50)).execute();
}

/** awaiting_bidder → active with the bidder's verified signed parent. */
export async function activateAuthorization(tx: Tx, id: string, signedPsbt: string, at: number): Promise<boolean> {
  return changed(
    await tx.updateTable('exact_authorizations').set({ state: 'active', bidder_signed_psbt: signedPsbt, updated_at: at }).where('id', '=', id).where('state', '=', 'awaiting_bidder').executeTakeFirst(),
  );
}

/** active → used by a journaled settlement (with the listing it reserved, released with it). */
export async function useAuthorization(tx: Tx, a: AuthRow, settlementId: string, txid: string, listingId: string | null, at: number): Promise<boolean> {
  const ok = changed(
    await tx.updateTable('exact_authorizations').set({ state: 'used', settlement_id: settlementId, claimed_listing_id: listingId, updated_at: at }).where('id', '=', a.id).where('state', '=', 'active').where('expires_at', '>', at).executeTakeFirst(),
  );
  if (ok) await recordEvent(tx, event(a, 'exact_authorization_used', at, 'used', { txid }));
  return ok;
}

/**
 * any state but used → used by `settlementId`: the chain confirmed a settlement the journal had
 * released (journal.ts markConfirmed), so the authorization was used after all. Its used event is
 * appended again (the later entry of an event id wins), with the listing it sold.
 */
export async function reuseAuthorization(tx: Tx, a: AuthRow, settlementId: string, txid: string, listingId: string | null, at: number): Promise<boolean> {
  const ok = changed(
    await tx
      .updateTable('exact_authorizations')
      .set({ state: 'used', end_reason: null, settlement_id: settlementId, claimed_listing_id: listingId, updated_at: at })
      .where('id', '=', a.id)
      .where('state', '<>', 'used')
      .executeTakeFirst(),
  );
  if (ok) await recordEvent(tx, event(a, 'exact_authorization_used', at, 'used', { txid }));
  return ok;
}

/** used → active: its settlement was released (refused, or lost to another spend). The used event goes. */
export async function unuseAuthorization(tx: Tx, settlementId: string, at: number): Promise<void> {
  const rows = await tx.selectFrom('exact_authorizations').selectAll().where('settlement_id', '=', settlementId).where('state', '=', 'used').execute();
  for (const a of rows) {
    await tx.updateTable('exact_authorizations').set({ state: 'active', settlement_id: null, claimed_listing_id: null, updated_at: at }).where('id', '=', a.id).where('state', '=', 'used').execute();
    await retractStoredEvent(tx, eventId('exact_authorization_used', a.id), at);
  }
}

/**
 * awaiting_bidder | active → retired with `reason` (cancelled, offer_ended, funding_spent, asset_moved).
 * Only an active authorization's retirement is an owner event (an awaiting one was never signed),
 * and the state the caller read may be stale (the bidder's signature can land in between): each
 * state is its own guarded UPDATE, active first, so the event follows the state actually left.
 */
export async function retireAuthorizations(tx: Tx, rows: AuthRow[], reason: string, at: number): Promise<AuthRow[]> {
  const done: AuthRow[] = [];
  const retireFrom = async (id: string, from: 'active' | 'awaiting_bidder') =>
    changed(
      await tx
        .updateTable('exact_authorizations')
        .set({ state: 'retired', end_reason: reason, bidder_signed_psbt: null, updated_at: at })
        .where('id', '=', id)
        .where('state', '=', from)
        .executeTakeFirst(),
    );
  for (const a of rows) {
    if (await retireFrom(a.id, 'active')) {
      done.push(a);
      await recordEvent(tx, event(a, 'exact_authorization_retired', at, 'retired', { reason }));
    } else if (await retireFrom(a.id, 'awaiting_bidder')) done.push(a);
  }
  return done;
}

function event(a: AuthRow, kind: string, at: number, status: string, extra: { txid?: string; reason?: string }) {
  return {
    event_id: eventId(kind, a.id),
    address: a.bidder,
    role: 'bidder' as const,
    kind,
    at,
    listing_id: null,
    asset: a.asset,
    price_sats: a.price_sats,
    txid: extra.txid ?? null,
    status,
    data: JSON.stringify({
      offer_id: a.offer_id,
      authorization_id: a.id,
      funding_slot_id: a.slot_id,
      asset_utxo: { txid: a.asset_txid, vout: a.asset_vout },
      ...(extra.reason ? { end_reason: extra.reason } : {}),
    }),
  };
}
