/**
 * The one owner of the listing state machine. Every change of a listing's
 * `state` goes through a function here: one guarded `UPDATE` (it names the
 * states it may leave, so a lost race changes nothing and answers false) and,
 * where the spec's feeds have one, its owner event in the same transaction.
 *
 *   (insert) → pending | active        create
 *   pending  → active                  activate (attach verified / reused unit confirmed)
 *   pending  → reserved                claim by outpoint (an accept that landed before the activation)
 *   active   → pending                  suspend (a reorg unconfirmed a reused unit's UTXO)
 *   active   → reserved                claim (a buyer's or seller's signed settlement: checkout by
 *                                      version, exact-offer and policy accepts by outpoint; first valid
 *                                      signature wins through the settlement's outpoint claims)
 *   reserved → active | pending        release (the claiming settlement was refused or conflicted;
 *                                      an accept's claim goes back as the chain has the unit now)
 *   reserved → exposed(reason)         expose: the released checkout had reached the network, so
 *                                      the seller's half is public (+ listing_exposed owner event,
 *                                      public delisted `invalid`: the listing left the book)
 *   exposed  → ended(owner | rotated)  delist, or the seller's rotation moved the unit
 *   ended(rotated) → exposed           unrotate: a reorg disconnected the rotation (its event removed)
 *   exposed  → ended(invalid)          any other spend of the unit (a sniper's, the seller's own)
 *   reserved → sold                    sell (the settlement confirmed; a released one mined anyway too:
 *   exposed | ended → sold               from exposed or ended, its public delisted is withdrawn)
 *   sold     → reserved                unsell (a reorg disconnected the sale)
 *   live     → ended(reason)           end: owner (delist), expired, invalid (+ owner event)
 *   ended(invalid) → active | reserved restore (the spend that invalidated it was reorged out; its event removed)
 *   ended(invalid) → exposed           restore of a listing that was exposed when the spend ended it
 *   open     → open, version + 1       reprice (price and seller half in one statement)
 *
 * Sales have no listing event of their own: the feeds derive `listing_filled`,
 * `sale` and `sale_confirmed` from fills (src/trade/fills.ts).
 *
 * Each transition a feed shows also appends to the event log in its transaction
 * (src/trade/event-rows.ts; owner events through src/trade/owner-events.ts): `listed` on activation and reprice, `delisted` and the
 * owner event on an ending, their retractions on a restore. An exposed listing's `delisted` is
 * written at its exposure and restated (same id, same `at`: when it left the book) by every later
 * transition that changes what it says: an ending, an unrotate, a restore to exposed.
 */
import { CompiledQuery, SqliteAdapter } from 'kysely';
import type { Db, Tx } from '../../store/db.js';
import type { ListingRow } from './store.js';
import { isPublicListing, logDelisted, logFillOwnerEvent, logListingEvent, retractPublicEvent } from '../../trade/event-rows.js';
import { recordEvent, retractStoredEvent } from '../../trade/owner-events.js';
import type { EndReason, ExposureReason, ListingState } from './tables.js';
import { eventId } from '../../trade/event-rows.js';

/** States a seller may still change (reprice, delist). */
export const OPEN: ListingState[] = ['pending', 'active'];

const changed = (res: { numUpdatedRows: bigint }) => Number(res.numUpdatedRows) === 1;

/** A new listing row (pending until the chain verifies its unit, or active at once). */
export async function createListing(tx: Tx, row: ListingRow): Promise<void> {
  await tx.insertInto('listings').values(row).execute();
  if (isPublicListing(row)) logListingEvent(tx, row, 'listed', null, row.activated_at!);
}

/** pending → active: the unit is verified on chain. */
export async function activateListing(tx: Tx, id: string, at: number): Promise<boolean> {
  const l = await tx.updateTable('listings').set({ state: 'active', activated_at: at, updated_at: at }).where('id', '=', id).where('state', '=', 'pending').returningAll().executeTakeFirst();
  if (l && isPublicListing(l)) logListingEvent(tx, l, 'listed', null, at);
  return l !== undefined;
}

/**
 * A reused unit's UTXO confirmed at `height` (pending → active) or was
 * unconfirmed by a reorg (`height` null: active → pending); other states keep
 * their state and only record the height.
 */
export async function setListingUtxoHeight(tx: Tx, l: ListingRow, height: number | null, at: number): Promise<boolean> {
  const state: ListingState = height === null ? (l.state === 'active' ? 'pending' : l.state) : l.state === 'pending' ? 'active' : l.state;
  return changed(await tx.updateTable('listings').set({ utxo_height: height, state, updated_at: at }).where('id', '=', l.id).where('state', '=', l.state).executeTakeFirst());
}

/**
 * active → reserved for every listing of a cart at once, each on the version the quote saw and
 * not expired at `at`: one guarded UPDATE for all lines (a 10-line checkout ran ten), returning
 * the ids it claimed; the caller refuses the cart unless every line is among them (and its
 * transaction then rolls back, so a partial claim is never committed). The listing triggers still
 * run once per row.
 *
 * Locking: on PostgreSQL the rows are locked in id order (a materialized CTE selecting them
 * `ORDER BY id FOR UPDATE`: the lock is taken above the sort), the order every cart takes, so two carts sharing
 * listings never wait on each other in a cycle; the loser re-reads the winner's row (READ
 * COMMITTED) and finds it no longer active; the UPDATE names the ids again so the planner reaches
 * the rows by primary key there too. SQLite has one writer at a time. There, the id terms decide
 * the index: `+state` and `+expires_at` keep SQLite from walking the state-and-expiry index over
 * every live listing of the market instead of the primary key (test/listings/claim-listings).
 *
 * The statement is written out (not built by Kysely) and kept per dialect and line count.
 */
export async function claimListings(tx: Tx, lines: ReadonlyArray<{ id: string; version: number }>, at: number): Promise<Set<string>> {
  if (!lines.length) return new Set();
  const sqlite = tx.getExecutor().adapter instanceof SqliteAdapter;
  const text = claimListingsSql(sqlite, lines.length);
  const ids = lines.map((l) => l.id);
  // One UPDATE claims a row once however often it is named: a listing named twice would pass as
  // two claimed lines (a quote refuses such a cart; this keeps the claim from ever selling it twice).
  if (new Set(ids).size !== ids.length) throw new Error('claimListings: a listing named twice');
  const parameters = [at, ...ids, at, ...lines.flatMap((l) => [l.id, l.version])];
  const r = await tx.executeQuery<{ id: string }>(CompiledQuery.raw(text, parameters));
  return new Set(r.rows.map((row) => row.id));
}

const claimTexts = new Map<string, string>();

/** The text of claimListings for `n` lines (exported for its query-plan test). */
export function claimListingsSql(sqlite: boolean, n: number): string {
  const key = `${sqlite ? 's' : 'p'}${n}`;
  const kept = claimTexts.get(key);
  if (kept) return kept;
  let k = 0;
  const p = () => (sqlite ? '?' : `$${++k}`);
  const set = p();
  const list = Array.from({ length: n }, p).join(', ');
  const now = p();
  // PostgreSQL types a CASE of bare parameters as text: the versions are cast.
  const versions = Array.from({ length: n }, () => `WHEN ${p()} THEN ${p()}${sqlite ? '' : '::integer'}`).join(' ');
  const text = sqlite
    ? `UPDATE listings SET state = 'reserved', updated_at = ${set} WHERE id IN (${list}) AND +state = 'active' AND +expires_at > ${now} AND version = CASE id ${versions} END RETURNING id`
    : `WITH locked AS MATERIALIZED (SELECT id FROM listings WHERE id IN (${list}) ORDER BY id FOR UPDATE) ` +
      `UPDATE listings l SET state = 'reserved', updated_at = ${set} FROM locked WHERE l.id = locked.id AND l.id IN (${list}) AND l.state = 'active' AND l.expires_at > ${now} AND l.version = CASE l.id ${versions} END RETURNING l.id`;
  claimTexts.set(key, text);
  return text;
}

/**
 * pending | active → reserved for a settlement that takes the unit by its outpoint (an
 * exact-offer or policy accept): the listing of that outpoint, whatever its price or version,
 * leaves the book. A `pending` one too: an accept checks the unit on chain itself and may land
 * before the indexer activates the listing; left pending, the activation would put a listing of
 * a sold unit on the book, and its sale (the claimer's own spend) would never end it. One
 * guarded UPDATE, so a later activation (pending only) changes nothing. The outpoint claim of
 * the settlement is what makes the claim exclusive across flows; this keeps the listing's
 * state true. Returns the listing reserved, if one was open there.
 */
export async function claimListingAt(tx: Tx, outpoint: string, at: number): Promise<string | null> {
  const l = await tx.updateTable('listings').set({ state: 'reserved', updated_at: at }).where('utxo_outpoint', '=', outpoint).where('state', 'in', OPEN).returning('id').executeTakeFirst();
  return l?.id ?? null;
}

/** reserved → `to`: the claiming settlement was released. */
export async function releaseListing(tx: Tx, id: string, to: 'active' | 'pending', at: number): Promise<boolean> {
  return changed(await tx.updateTable('listings').set({ state: to, updated_at: at }).where('id', '=', id).where('state', '=', 'reserved').executeTakeFirst());
}

/**
 * reserved → pending | active for a released accept (claimListingAt), as the chain has it now:
 * `pending` while the indexer has not verified the unit (the attach not yet `completed`, a
 * reused unit's UTXO unconfirmed), else `active` — with its `listed` event when it was claimed
 * before it was ever activated.
 */
export async function releaseClaimAt(tx: Tx, id: string, at: number): Promise<boolean> {
  const r = await tx
    .selectFrom('listings')
    .leftJoin('listing_drafts', 'listing_drafts.id', 'listings.draft_id')
    .select(['listings.activated_at', 'listings.utxo_height', 'listing_drafts.mode', 'listing_drafts.status'])
    .where('listings.id', '=', id)
    .executeTakeFirst();
  if (!r) return false;
  const verified = r.mode === 'reuse' ? r.utxo_height !== null : r.mode === 'attach' ? r.status === 'completed' : true;
  if (!verified) return releaseListing(tx, id, 'pending', at);
  if (r.activated_at !== null) return releaseListing(tx, id, 'active', at);
  const l = await tx.updateTable('listings').set({ state: 'active', activated_at: at, updated_at: at }).where('id', '=', id).where('state', '=', 'reserved').returningAll().executeTakeFirst();
  if (l && isPublicListing(l)) logListingEvent(tx, l, 'listed', null, at);
  return l !== undefined;
}

/**
 * reserved → exposed: the claiming checkout was released after its bytes (with the seller's
 * SINGLE|ANYONECANPAY half) may have reached the network. The half stays valid on Bitcoin
 * until the unit moves, so the listing never goes back to the book: it leaves it, keeps its
 * outpoint (no new listing of the unit until it moves), forgets the half (the market never
 * uses it again) and tells the seller why.
 */
export async function exposeListing(tx: Tx, l: ListingRow, reason: ExposureReason, at: number, txid: string): Promise<boolean> {
  const row = await tx
    .updateTable('listings')
    .set({ state: 'exposed', exposed_at: at, exposure_reason: reason, signed_psbt: null, updated_at: at })
    .where('id', '=', l.id)
    .where('state', '=', 'reserved')
    .returningAll()
    .executeTakeFirst();
  if (!row) return false;
  // Off the book for good (until it ends or sells): the public feeds say so now, not at its ending.
  logDelisted(tx, row, at);
  await recordEvent(tx, {
    event_id: eventId('listing_exposed', `${l.id}\n${txid}`),
    address: l.seller,
    role: 'seller',
    kind: 'listing_exposed',
    at,
    listing_id: l.id,
    asset: l.asset,
    price_sats: l.price_sats,
    txid,
    status: 'exposed',
    data: JSON.stringify({ exposure_reason: reason, asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout }, next_action: 'rotate' }),
  });
  return true;
}

/**
 * → sold: the settlement confirmed (from any state but sold: the chain wins over a release). The
 * seller half is wiped. Two guarded statements, so each row's former state is known atomically:
 * one that was exposed or ended had a public `delisted`, which its sale replaces (a sold listing
 * has no delisted event), so it is withdrawn.
 */
export async function sellListings(tx: Tx, ids: string[], at: number): Promise<void> {
  if (!ids.length) return;
  const sell = (from: 'off_book' | 'other') => {
    const q = tx.updateTable('listings').set({ state: 'sold', end_reason: null, signed_psbt: null, ended_at: at, updated_at: at }).where('id', 'in', ids);
    return (from === 'off_book' ? q.where('state', 'in', ['exposed', 'ended']) : q.where('state', 'not in', ['sold', 'exposed', 'ended'])).returningAll().execute();
  };
  const delisted = await sell('off_book');
  for (const l of delisted) if (isPublicListing(l)) retractPublicEvent(tx, eventId('delisted', l.id), at);
  await logFilledStatus(tx, [...delisted, ...(await sell('other'))]);
}

/** sold → reserved: a reorg disconnected the sale; the settlement is in flight again. */
export async function unsellListings(tx: Tx, ids: string[], at: number): Promise<void> {
  if (!ids.length) return;
  const back = await tx.updateTable('listings').set({ state: 'reserved', ended_at: null, updated_at: at }).where('id', 'in', ids).where('state', '=', 'sold').returningAll().execute();
  await logFilledStatus(tx, back);
}

/** The seller's `listing_filled` shows the listing's state now: a sale that confirms (or a reorg undoes) appends it again. */
async function logFilledStatus(tx: Tx, listings: ListingRow[]): Promise<void> {
  if (!listings.length) return;
  const byId = new Map(listings.map((l) => [l.id, l]));
  const fills = await tx.selectFrom('fills').selectAll().where('kind', '=', 'listing').where('ref_id', 'in', [...byId.keys()]).where('state', '!=', 'dropped').execute();
  for (const f of fills) {
    const l = byId.get(f.ref_id)!;
    logFillOwnerEvent(tx, f, 'listing_filled', l.state, l);
  }
}

/**
 * Open → open with a new price and seller half in one statement; the new version, or null when
 * it changed meanwhile. A public listing's `listed` event shows the current ask, so the log gets it again.
 */
export async function repriceListing(db: Db, l: ListingRow, price: number, signedPsbt: string, at: number): Promise<number | null> {
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable('listings')
      .set((eb) => ({ price_sats: price, signed_psbt: signedPsbt, version: eb('version', '+', 1), updated_at: at }))
      .where('id', '=', l.id)
      .where('state', 'in', OPEN)
      .where('expires_at', '>', at)
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    if (isPublicListing(row)) logListingEvent(tx, row, 'listed', null, row.activated_at!);
    return row.version;
  });
}

/**
 * Ends a listing that still holds its outpoint, wiping the seller's signed half in the same
 * write, and records the owner event. False when it was no longer in one of `from`.
 *
 * `spentHeight`: the listing ends `invalid` because block `spentHeight` spent its asset UTXO.
 * The signed half is then kept (the listing is ended, so nothing uses it and no read shows it)
 * until that spend is final, so a reorg of the block can restore the listing (restoreListing).
 */
export async function endListing(
  tx: Tx,
  l: ListingRow,
  reason: EndReason,
  at: number,
  from: ListingState[] = OPEN,
  opts: { spentHeight?: number } = {},
): Promise<boolean> {
  const spent = reason === 'invalid' && opts.spentHeight !== undefined;
  const row = await tx
    .updateTable('listings')
    .set({ state: 'ended', end_reason: reason, ...(spent ? { spent_height: opts.spentHeight } : { signed_psbt: null }), ended_at: at, updated_at: at })
    .where('id', '=', l.id)
    .where('state', 'in', from)
    .returningAll()
    .executeTakeFirst();
  if (!row) return false;
  // A rotation is the seller moving its own unit: the public feed's reason is `owner`. An exposed
  // listing's delisted (written at its exposure) is restated with the ending's reason.
  logDelisted(tx, row, at);
  const kind = endEventKind(reason);
  await recordEvent(tx, {
    event_id: eventId(kind, l.id),
    address: l.seller,
    role: 'seller',
    kind,
    at: reason === 'expired' ? Math.min(at, l.expires_at) : at,
    listing_id: l.id,
    asset: l.asset,
    price_sats: l.price_sats,
    txid: null,
    status: 'ended',
    data: JSON.stringify({ end_reason: reason, asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout }, ...(reason === 'expired' ? { expires_at: l.expires_at } : {}) }),
  });
  return true;
}

/**
 * ended(invalid by a spend) → `to`: the block that spent the unit was disconnected.
 * The invalidation event goes with it (rule 6: an event reflects its row's current state).
 * `exposed`: the listing had been exposed when the spend ended it. Its half is public and valid
 * again now that the unit is back, so it returns to that state (still off the book, the rotation
 * offered again), never to the book; the public feed keeps the listing's exit, which stands.
 */
export async function restoreListing(tx: Tx, l: ListingRow, to: 'active' | 'reserved' | 'exposed', at: number): Promise<boolean> {
  const row = await tx
    .updateTable('listings')
    .set({ state: to, end_reason: null, ended_at: null, spent_height: null, updated_at: at })
    .where('id', '=', l.id)
    .where('state', '=', 'ended')
    .where('end_reason', '=', 'invalid')
    .returningAll()
    .executeTakeFirst();
  if (!row) return false;
  await retractStoredEvent(tx, eventId(endEventKind('invalid'), l.id), at);
  // Back on the book: the exit is withdrawn. Back to exposed: the exit stands, restated as the exposure's.
  if (to === 'exposed') logDelisted(tx, row, at);
  else if (isPublicListing(l)) retractPublicEvent(tx, eventId('delisted', l.id), at);
  return true;
}

/**
 * ended(rotated) → exposed: a reorg disconnected the rotation, so the old half is live again
 * until the rotation confirms anew. The `listing_rotated` event goes with it (retracted in the
 * log, as every undone ending is), and the public `delisted` is restated as the exposure's
 * (`invalid`: the seller's move that read `owner` is undone).
 */
export async function unrotateListing(tx: Tx, id: string, at: number): Promise<boolean> {
  const row = await tx
    .updateTable('listings')
    .set({ state: 'exposed', end_reason: null, ended_at: null, updated_at: at })
    .where('id', '=', id)
    .where('state', '=', 'ended')
    .where('end_reason', '=', 'rotated')
    .returningAll()
    .executeTakeFirst();
  if (!row) return false;
  await retractStoredEvent(tx, eventId(endEventKind('rotated'), id), at);
  logDelisted(tx, row, at);
  return true;
}

/** Forgets an ended listing's kept seller half (its spend is final, or the unit was listed again). */
export async function forgetEndedHalf(tx: Tx, where: { id: string } | { spentAtOrBelow: number }, at: number): Promise<void> {
  const q = tx.updateTable('listings').where('state', '=', 'ended').where('signed_psbt', 'is not', null);
  if ('id' in where) await q.set({ signed_psbt: null, updated_at: at }).where('id', '=', where.id).execute();
  else await q.set({ signed_psbt: null }).where('spent_height', '<=', where.spentAtOrBelow).execute();
}

function endEventKind(reason: EndReason): 'listing_delisted' | 'listing_expired' | 'listing_invalidated' | 'listing_rotated' {
  return reason === 'owner' ? 'listing_delisted' : reason === 'expired' ? 'listing_expired' : reason === 'rotated' ? 'listing_rotated' : 'listing_invalidated';
}
