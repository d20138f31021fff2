/**
 * Listings of reused units (mode=reuse) follow the confirmation of their asset UTXO, which the
 * market did not create and so cannot follow through a draft's attach. A listing's
 * `utxo_height` is the block that confirmed its asset UTXO (read from the chain when the
 * listing was made); a public listing always has one.
 *
 * - Rollback of that block: the UTXO is unconfirmed, so the listing leaves the public book
 *   (`active` → `pending`; `utxo_height` null). The signed half is kept: the unit has not moved.
 * - A block holding the UTXO's transaction again: Counterparty's credits to the outpoint in that
 *   block must be exactly the unit (a new output holds only what its own transaction put there),
 *   then the listing is `active` again; anything else (another asset, another quantity, nothing)
 *   ends it `invalid`, for good.
 * - The UTXO's transaction is gone (neither in the chain nor the mempool, e.g. its input was spent
 *   by another transaction in the new chain): ended `invalid`, for good.
 * - A listing made while the indexer was behind records the height the chain then said; if the
 *   block the indexer reads at that height no longer holds the transaction (a reorg the indexer
 *   never saw), it is treated as a rollback.
 */
import type { Tx } from '../../store/db.js';
import type { BitcoinBackend, CpEvent } from '../../chain/ports.js';
import type { IndexedBlock } from '../../indexer/indexer.js';
import { quantityFromJson } from '../../counterparty/ledger-events.js';
import { endListing, LIVE, type ListingRow } from './store.js';

/** Takes listings whose asset UTXO was confirmed at `height` or above off the public book. */
export async function unconfirmReused(tx: Tx, height: number, at: number): Promise<void> {
  const rows = await tx.selectFrom('listings').selectAll().where('utxo_height', '>=', height).where('state', 'in', LIVE).execute();
  for (const l of rows) await unconfirm(tx, l, at);
}

async function unconfirm(tx: Tx, l: ListingRow, at: number): Promise<void> {
  // A reserved listing stays the checkout's to settle; it only loses its confirmation.
  await tx
    .updateTable('listings')
    .set({ utxo_height: null, state: l.state === 'active' ? 'pending' : l.state, updated_at: at })
    .where('id', '=', l.id)
    .where('state', '=', l.state)
    .execute();
}

/** True when the block's Counterparty credits to the listing's outpoint are exactly its unit. */
function holdsExactlyTheUnit(events: CpEvent[], l: ListingRow): boolean {
  const held = new Map<string, bigint>();
  for (const e of events) {
    if (e.event !== 'CREDIT' || e.params.utxo !== l.utxo_outpoint) continue;
    const asset = String(e.params.asset);
    held.set(asset, (held.get(asset) ?? 0n) + quantityFromJson(e.params.quantity));
  }
  if (held.get(l.asset) !== BigInt(l.quantity_raw)) return false;
  return [...held].every(([asset, q]) => asset === l.asset || q === 0n);
}

/** Neither an unspent output (chain or mempool) nor a known transaction any more. */
async function vanished(bitcoin: BitcoinBackend, l: ListingRow): Promise<boolean> {
  if (await bitcoin.getTxOut(l.utxo_txid, l.utxo_vout, true)) return false;
  return !(await bitcoin.getTransaction(l.utxo_txid));
}

/** The block's effect on reused units' listings (before spends are applied). */
export async function followReused(tx: Tx, b: IndexedBlock, at: number, bitcoin: BitcoinBackend): Promise<void> {
  const h = b.block.height;
  const inBlock = new Set(b.block.txs.map((t) => t.txid));

  const recorded = await tx.selectFrom('listings').selectAll().where('utxo_height', '=', h).where('state', 'in', LIVE).execute();
  for (const l of recorded) if (!inBlock.has(l.utxo_txid)) await unconfirm(tx, l, at);

  const waiting = await tx
    .selectFrom('listings')
    .innerJoin('listing_drafts', 'listing_drafts.id', 'listings.draft_id')
    .selectAll('listings')
    .where('listing_drafts.mode', '=', 'reuse')
    .where('listings.utxo_height', 'is', null)
    .where('listings.state', 'in', LIVE)
    .execute();
  // Gone-or-not is asked at the tip only: while catching up, a transaction confirmed in a later
  // block is not in this one, and a node without txindex would not find it either.
  let atTip: boolean | undefined;
  for (const l of waiting) {
    if (inBlock.has(l.utxo_txid)) {
      if (!holdsExactlyTheUnit(b.events, l)) {
        await endListing(tx, l, 'invalid', at, LIVE);
        continue;
      }
      await tx
        .updateTable('listings')
        .set({ utxo_height: h, state: l.state === 'pending' ? 'active' : l.state, updated_at: at })
        .where('id', '=', l.id)
        .where('state', '=', l.state)
        .execute();
    } else {
      atTip ??= (await bitcoin.getTip()).hash === b.block.hash;
      if (atTip && (await vanished(bitcoin, l))) await endListing(tx, l, 'invalid', at, LIVE);
    }
  }
}
