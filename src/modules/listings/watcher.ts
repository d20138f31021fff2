/**
 * The seller's side follows the chain (inside the indexer's transaction for each block):
 *
 * - A signed attach in the block is verified against Counterparty's ATTACH_TO_UTXO event of
 *   the same transaction (valid, same asset and quantity, destination `txid:0`) and the block's
 *   CREDIT events to `txid:0`: only this transaction can credit its own output, but besides the
 *   attach it also moves there any balance an input carried, so the credits must be exactly
 *   the unit. The draft becomes `ready` (`prepared` for an attach template, or
 *   `completed` when a listing exists, which then becomes `active`), with the fee actually
 *   charged. An invalid attach fails the draft and ends its listing (`invalid`).
 * - Reused units' listings follow their asset UTXO's confirmation (reuse-watch.ts): unconfirmed
 *   by a reorg they wait `pending` off the book, and come back `active` when it confirms again
 *   holding exactly the unit, or end `invalid` if it vanished or holds something else.
 * - A block that spends a listed asset UTXO ends the listing `invalid`, unless the listing is
 *   reserved by the settlement whose transaction spent it (that settlement's handler sells it);
 *   a `ready`/`prepared` draft whose unit is spent fails.
 * - Listings past their marketplace expiry are ended `expired` (reads derive it earlier).
 *
 * Spends are reorg-aware until final. A listing ended `invalid` by a spend in block h records
 * h (`spent_height`) and keeps the seller's signed half: the listing is ended, so no checkout,
 * reprice or read uses or shows it. When the spend has FINALITY_DEPTH (3) confirmations (the
 * indexer reads block h + 2) the half is wiped and the ending is final. If block h is rolled
 * back first, the listing is restored (`active`, or `reserved` while a settlement claims its
 * outpoint; ended `expired` instead if its expiry has passed), its `listing_invalidated` owner
 * event is deleted (events reflect current state), and a later block spending it again ends it
 * again, with the same event id. Every other ending wipes the half at once.
 *
 * Rollback (a reorg disconnected blocks ≥ height), in this order: listings ended by a spend
 * there are restored (above); drafts confirmed there go back to `awaiting_indexer`; a
 * `completed` draft is marked reopened and reads `withdrawn` (next_action list_again) and its
 * listing ends `invalid`: the seller's half is wiped, so the unit must be listed again with a
 * new preflight; drafts failed by a spend there are restored; reused units confirmed there go
 * back to `pending`. When a reopened draft's attach confirms again it is verified again
 * (reconfirmReopened): found invalid, the draft fails, and a listing already sold is logged as an
 * error (its buyer will not get the unit) and told to both parties (`purchase_undelivered`,
 * `sale_undelivered`); a rollback of that block withdraws them with the failure.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Tx } from '../../store/db.js';
import type { Chain, CpEvent } from '../../chain/ports.js';
import type { IndexedBlock, Watcher } from '../../indexer/indexer.js';
import { spentOutpoints } from '../../indexer/spends.js';
import { FINALITY_DEPTH } from '../transactions/index.js';
import { quantityFromJson } from '../../counterparty/ledger-events.js';
import { IN_FLIGHT, LIVE, type DraftRow } from './store.js';
import { activateListing, endListing, forgetEndedHalf, restoreListing } from './lifecycle.js';
import { outpointKey } from '../../trade/outpoints.js';
import { recordEvent, retractStoredEvent } from '../../trade/owner-events.js';
import { eventId } from '../../trade/event-rows.js';
import { followReused, unconfirmReused } from './reuse-watch.js';

const CHUNK = 500;

function chunks<T>(xs: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

/**
 * Everything the block credited to `utxo`, per asset. Only the transaction that creates an
 * output can credit it, so this is all the output holds.
 */
function creditedTo(events: CpEvent[], utxo: string): Map<string, bigint> {
  const held = new Map<string, bigint>();
  for (const e of events) {
    if (e.event !== 'CREDIT' || e.params.utxo !== utxo) continue;
    const asset = String(e.params.asset);
    let q: bigint;
    try {
      q = quantityFromJson(e.params.quantity);
    } catch {
      q = -1n; // unreadable: never "exactly the unit"
    }
    held.set(asset, (held.get(asset) ?? 0n) + q);
  }
  return held;
}

function attachVerdict(d: DraftRow, ev: CpEvent | undefined, events: CpEvent[]): { ok: true; fee: string } | { ok: false; error: string } {
  // A co-signed reuse draft moved its unit (no message): only the credits to txid:0 count.
  if (d.mode === 'reuse') return exactlyTheUnit(d, events) ?? { ok: true, fee: '0' };
  if (!ev) return { ok: false, error: 'attach confirmed without a Counterparty attach (message missing or dropped)' };
  const p = ev.params;
  if (p.status !== 'valid') return { ok: false, error: `attach ${String(p.status)}` };
  const utxo = outpointKey(d.attach_txid!, 0);
  if (p.asset !== d.asset || String(p.quantity) !== d.quantity_raw || p.destination !== utxo) {
    return { ok: false, error: 'attach confirmed with another asset, quantity or destination' };
  }
  return exactlyTheUnit(d, events) ?? { ok: true, fee: String(p.fee_paid ?? 0) };
}

/**
 * An attach that spends an input carrying balances (an unconfirmed funding outpoint whose
 * balance Counterparty did not show yet) also moves them into out 0: the unit is then more than
 * quantity_raw, and a listing of it would sell the rest for nothing. Undefined when out 0 got
 * exactly the unit.
 */
function exactlyTheUnit(d: DraftRow, events: CpEvent[]): { ok: false; error: string } | undefined {
  const held = creditedTo(events, outpointKey(d.attach_txid!, 0));
  if (held.get(d.asset) !== BigInt(d.quantity_raw) || [...held].some(([asset, q]) => asset !== d.asset && q !== 0n)) {
    const what = [...held].map(([asset, q]) => `${q} ${asset}`).join(', ');
    return { ok: false, error: `the asset UTXO holds more than the unit (${what}): an attach input carried a Counterparty balance` };
  }
  return undefined;
}

type Confirmation = { confirmed_height: number; confirmed_hash: string; bitcoin_confirmed_at: number; updated_at: number };

/**
 * A completed draft whose attach a reorg reopened, met again in a block. Its listing already
 * ended at the rollback, unless it was sold (claimed by a sale in flight): then the sale spends
 * this attach's output, and what Counterparty finds here decides whether the buyer gets the unit.
 * Valid: the confirmation is recorded again. Invalid (the balance it attached was not the seller's
 * in this chain: the transaction that credited it was reordered after it, or lost to another
 * spend): the draft fails with the reason, and a sold listing is an error for the operator, because
 * its buyer paid for a unit that Counterparty will not deliver (docs/simulation.md, "A unit sold
 * before its attach is final"). The market cannot undo that sale; only refusing to sell a unit
 * before its attach is final would prevent it.
 */
async function reconfirmReopened(tx: Tx, d: DraftRow, v: ReturnType<typeof attachVerdict>, confirmed: Confirmation, log: FastifyBaseLogger): Promise<void> {
  if (v.ok) {
    await tx.updateTable('listing_drafts').set({ ...confirmed, protocol_fee_actual_raw: v.fee }).where('id', '=', d.id).where('status', '=', 'completed').execute();
    return;
  }
  await tx.updateTable('listing_drafts').set({ ...confirmed, status: 'failed', last_error: v.error }).where('id', '=', d.id).where('status', '=', 'completed').execute();
  const listing = d.listing_id ? await tx.selectFrom('listings').select(['id', 'state']).where('id', '=', d.listing_id).executeTakeFirst() : undefined;
  await tellUndelivered(tx, d, listing, v.error, confirmed.updated_at, log);
}

/**
 * A draft's attach found invalid: when its listing was already sold (or its sale is in flight),
 * the buyer paid for a unit Counterparty will not deliver. The operator is told in the log, the
 * parties in their feeds.
 */
async function tellUndelivered(tx: Tx, d: DraftRow, listing: { id: string; state: string } | undefined, error: string, at: number, log: FastifyBaseLogger): Promise<void> {
  if (listing?.state !== 'sold' && listing?.state !== 'reserved') return;
  const fills = await saleFills(tx, listing.id);
  log.error({ listing_id: listing.id, draft_id: d.id, attach_txid: d.attach_txid, asset: d.asset, attach_error: error, fills }, 'a sold unit\'s attach is invalid after a reorg: its sale delivers nothing to the buyer');
  for (const f of fills) {
    for (const [kind, role, address] of UNDELIVERED) {
      await recordEvent(tx, {
        event_id: eventId(kind, f.id),
        address: address(f),
        role,
        kind,
        at,
        listing_id: listing.id,
        asset: d.asset,
        price_sats: f.price_sats,
        txid: f.txid,
        status: 'undelivered',
        data: JSON.stringify({ delivery_failure: error, asset_utxo: { txid: d.attach_txid, vout: 0 } }),
      });
    }
  }
}

type SaleFill = { id: string; txid: string; buyer: string; seller: string; price_sats: number; state: string };
const saleFills = (tx: Tx, listingId: string): Promise<SaleFill[]> =>
  tx.selectFrom('fills').select(['id', 'txid', 'buyer', 'seller', 'price_sats', 'state']).where('kind', '=', 'listing').where('ref_id', '=', listingId).where('state', '<>', 'dropped').execute();

/** The parties a sale that delivers nothing is told (the buyer is the fill's delivery address). */
const UNDELIVERED: ReadonlyArray<readonly ['purchase_undelivered' | 'sale_undelivered', 'buyer' | 'seller', (f: SaleFill) => string]> = [
  ['purchase_undelivered', 'buyer', (f) => f.buyer],
  ['sale_undelivered', 'seller', (f) => f.seller],
];

/** A rollback took the block that failed a sold unit's attach: its parties' undelivered events go with it. */
async function withdrawUndelivered(tx: Tx, d: DraftRow, at: number): Promise<void> {
  if (!d.listing_id) return;
  for (const f of await saleFills(tx, d.listing_id)) for (const [kind] of UNDELIVERED) await retractStoredEvent(tx, eventId(kind, f.id), at);
}

async function confirmAttaches(tx: Tx, b: IndexedBlock, at: number, log: FastifyBaseLogger): Promise<void> {
  const attachEvents = new Map(b.events.filter((e) => e.event === 'ATTACH_TO_UTXO' && e.tx_hash).map((e) => [e.tx_hash!, e]));
  for (const part of chunks(b.block.txs.map((t) => t.txid))) {
    const drafts = await tx
      .selectFrom('listing_drafts')
      .selectAll()
      .where('attach_txid', 'in', part)
      .where((eb) => eb.or([eb('status', 'in', [...IN_FLIGHT, 'failed']), eb.and([eb('status', '=', 'completed'), eb('reopened', '=', 1)])]))
      .where('spent_height', 'is', null)
      .execute();
    for (const d of drafts) {
      const v = attachVerdict(d, attachEvents.get(d.attach_txid!), b.events);
      const confirmed: Confirmation = { confirmed_height: b.block.height, confirmed_hash: b.block.hash, bitcoin_confirmed_at: at, updated_at: at };
      if (d.status === 'completed') {
        await reconfirmReopened(tx, d, v, confirmed, log);
        continue;
      }
      const listing = d.listing_id ? await tx.selectFrom('listings').selectAll().where('id', '=', d.listing_id).executeTakeFirst() : undefined;
      if (!v.ok) {
        await tx.updateTable('listing_drafts').set({ ...confirmed, status: 'failed', last_error: v.error }).where('id', '=', d.id).execute();
        // A draft back here from a rollback of its failure may hold a sold listing (endListing leaves it).
        await tellUndelivered(tx, d, listing, v.error, at, log);
        if (listing) await endListing(tx, listing, 'invalid', at);
        continue;
      }
      const status = listing ? 'completed' : d.purpose === 'prepare' ? 'prepared' : 'ready';
      await tx
        .updateTable('listing_drafts')
        .set({ ...confirmed, status, last_error: null, protocol_fee_actual_raw: v.fee, protocol_fee_block: b.block.height, protocol_fee_charged_at: at })
        .where('id', '=', d.id)
        .execute();
      if (listing?.state === 'pending') await activateListing(tx, listing.id, at);
    }
  }
}

async function endSpent(tx: Tx, b: IndexedBlock, at: number): Promise<void> {
  const spent = spentOutpoints(b);
  for (const part of chunks([...spent.keys()])) {
    const listings = await tx.selectFrom('listings').selectAll().where('utxo_outpoint', 'in', part).where('state', 'in', LIVE).execute();
    for (const l of listings) {
      const spender = spent.get(l.utxo_outpoint)!;
      // A listing reserved by the settlement that spent its unit is that settlement's to settle
      // (sold), not ours. Any other listing of the unit ends here, even when a settlement of the
      // market spent it: an exposed listing whose unit its seller sold by accepting a bid is
      // reserved by nobody, and stayed exposed for ever, offering a rotation that could only fail
      // (sim day 9170).
      if (l.state === 'reserved') {
        const claimedBy = await tx
          .selectFrom('outpoint_claims')
          .innerJoin('settlements', 'settlements.id', 'outpoint_claims.settlement_id')
          .select('settlements.txid')
          .where('outpoint_claims.outpoint', '=', l.utxo_outpoint)
          .executeTakeFirst();
        if (claimedBy?.txid === spender) continue;
      }
      await endListing(tx, l, 'invalid', at, LIVE, { spentHeight: b.block.height });
    }
    await tx
      .updateTable('listing_drafts')
      .set({ status: 'failed', last_error: 'the asset UTXO was spent', spent_height: b.block.height, updated_at: at })
      .where('asset_outpoint', 'in', part)
      .where('status', 'in', ['ready', 'prepared'])
      .execute();
  }
}

async function expireListings(tx: Tx, at: number): Promise<void> {
  const due = await tx.selectFrom('listings').selectAll().where('state', 'in', ['pending', 'active']).where('expires_at', '<=', at).limit(1000).execute();
  for (const l of due) await endListing(tx, l, 'expired', at);
}

/** A spend with FINALITY_DEPTH confirmations can no longer be undone: wipe the kept halves. */
async function finalizeSpent(tx: Tx, height: number, at: number): Promise<void> {
  await forgetEndedHalf(tx, { spentAtOrBelow: height - (FINALITY_DEPTH - 1) }, at);
}

/** Listings a spend in a disconnected block ended come back as they were (see the header). */
async function restoreSpent(tx: Tx, height: number, at: number): Promise<void> {
  const rows = await tx
    .selectFrom('listings')
    .selectAll()
    .where('state', '=', 'ended')
    .where('end_reason', '=', 'invalid')
    .where('spent_height', '>=', height)
    // A plain ending keeps its half until the spend is final (then it cannot be restored); an
    // exposed listing's half was forgotten at exposure, but it is public and valid again whenever
    // the spend is undone, so it is restored to exposed at any depth.
    .where((eb) => eb.or([eb('signed_psbt', 'is not', null), eb('exposed_at', 'is not', null)]))
    .execute();
  for (const l of rows) {
    const other = await tx.selectFrom('listings').select('id').where('utxo_outpoint', '=', l.utxo_outpoint).where('state', 'in', LIVE).executeTakeFirst();
    if (other) {
      // The outpoint was listed again meanwhile: this ending stands.
      await forgetEndedHalf(tx, { id: l.id }, at);
      continue;
    }
    if (l.exposed_at !== null) {
      // Its half left the market's hands: never silently back on the book (issue 18).
      await restoreListing(tx, l, 'exposed', at);
      continue;
    }
    const claimed = await tx.selectFrom('outpoint_claims').select('outpoint').where('outpoint', '=', l.utxo_outpoint).executeTakeFirst();
    const state = claimed ? 'reserved' : 'active';
    await restoreListing(tx, l, state, at);
    if (state === 'active' && l.expires_at <= at) await endListing(tx, { ...l, state }, 'expired', at, ['active']);
  }
}

async function rollback(tx: Tx, height: number, at: number): Promise<void> {
  await restoreSpent(tx, height, at);
  const unconfirm = {
    confirmed_height: null,
    confirmed_hash: null,
    bitcoin_confirmed_at: null,
    protocol_fee_actual_raw: null,
    protocol_fee_block: null,
    protocol_fee_charged_at: null,
    updated_at: at,
  };
  const drafts = await tx.selectFrom('listing_drafts').selectAll().where('confirmed_height', '>=', height).execute();
  for (const d of drafts) {
    if (d.status === 'completed') {
      await tx.updateTable('listing_drafts').set({ reopened: 1, updated_at: at }).where('id', '=', d.id).execute();
      const l = d.listing_id ? await tx.selectFrom('listings').selectAll().where('id', '=', d.listing_id).executeTakeFirst() : undefined;
      if (l) await endListing(tx, l, 'invalid', at);
    } else if (d.status === 'ready' || d.status === 'prepared' || d.status === 'failed') {
      if (d.status === 'failed') await withdrawUndelivered(tx, d, at);
      await tx
        .updateTable('listing_drafts')
        .set({ ...unconfirm, status: 'awaiting_indexer', last_error: null, spent_height: null })
        .where('id', '=', d.id)
        .execute();
    }
  }
  const spent = await tx.selectFrom('listing_drafts').selectAll().where('spent_height', '>=', height).where('status', '=', 'failed').execute();
  for (const d of spent) {
    await tx
      .updateTable('listing_drafts')
      .set({ status: d.purpose === 'prepare' ? 'prepared' : 'ready', spent_height: null, last_error: null, updated_at: at })
      .where('id', '=', d.id)
      .execute();
  }
  await unconfirmReused(tx, height, at);
}

export function listingsWatcher(chain: Chain, log: FastifyBaseLogger): Watcher {
  return {
    name: 'listings',
    onBlock: async (tx, b) => {
      const at = Math.floor(b.seenAt / 1000);
      await confirmAttaches(tx, b, at, log);
      await followReused(tx, b, at, chain);
      await endSpent(tx, b, at);
      await expireListings(tx, at);
      await finalizeSpent(tx, b.block.height, at);
    },
    rollback: async (tx, height) => {
      // Rollback has no block time; the newest indexed block's seen_at stands in for "now".
      const last = await tx.selectFrom('indexed_blocks').select('seen_at').orderBy('height', 'desc').limit(1).executeTakeFirst();
      await rollback(tx, height, Math.floor((last?.seen_at ?? 0) / 1000));
    },
  };
}
