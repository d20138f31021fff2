/**
 * Listings of reused units (mode=reuse) follow the confirmation of their asset UTXO, which the
 * market did not create and so cannot follow through a draft's attach. A listing's
 * `utxo_height` is the block that confirmed its asset UTXO (read from the chain when the
 * listing was made); a public listing has one.
 *
 * - Rollback of that block: the UTXO is unconfirmed, so the listing leaves the public book
 *   (`active` → `pending`; `utxo_height` null). The signed half is kept: the unit has not moved.
 * - A block holding the UTXO's transaction again: Counterparty's credits to the outpoint in that
 *   block must be exactly the unit (a new output holds only what its own transaction put there),
 *   then the listing is `active` again; anything else (another asset, another quantity, nothing)
 *   ends it `invalid`, for good.
 * - A listing made while the indexer was behind records the height the chain then said; if the
 *   block the indexer reads at that height no longer holds the transaction (a reorg the indexer
 *   never saw), it is treated as a rollback.
 * - At the tip, a listing still waiting is settled from the chain as it is now: a UTXO confirmed
 *   meanwhile (mined again lower than recorded) is checked against Counterparty's balances
 *   (exactly the unit: `active`; else `invalid`); a transaction still in the mempool waits; one
 *   gone from chain and mempool (its input spent by another transaction in the new chain)
 *   vanished: `invalid`, for good.
 */
import type { Tx } from '../../store/db.js';
import type { Chain, CpEvent } from '../../chain/ports.js';
import type { IndexedBlock } from '../../indexer/indexer.js';
import { quantityFromJson } from '../../counterparty/ledger-events.js';
import { LIVE, type ListingRow } from './store.js';
import { endListing, setListingUtxoHeight } from './lifecycle.js';

/** Takes listings whose asset UTXO was confirmed at `height` or above off the public book. */
export async function unconfirmReused(tx: Tx, height: number, at: number): Promise<void> {
  const rows = await tx.selectFrom('listings').selectAll().where('utxo_height', '>=', height).where('state', 'in', LIVE).execute();
  for (const l of rows) await setListingUtxoHeight(tx, l, null, at);
}

/** True when `held` (asset → raw quantity) is exactly the listing's unit and nothing else. */
function isExactlyTheUnit(held: Map<string, bigint>, l: ListingRow): boolean {
  if (held.get(l.asset) !== BigInt(l.quantity_raw)) return false;
  return [...held].every(([asset, q]) => asset === l.asset || q === 0n);
}

function add(held: Map<string, bigint>, asset: string, q: bigint): Map<string, bigint> {
  return held.set(asset, (held.get(asset) ?? 0n) + q);
}

/** The block's Counterparty credits to the listing's outpoint (all a new output can hold). */
function creditedInBlock(events: CpEvent[], l: ListingRow): Map<string, bigint> {
  const held = new Map<string, bigint>();
  for (const e of events) {
    if (e.event === 'CREDIT' && e.params.utxo === l.utxo_outpoint) add(held, String(e.params.asset), quantityFromJson(e.params.quantity));
  }
  return held;
}


/**
 * At the tip, a waiting listing is settled from the chain's current state: its UTXO confirmed
 * in a block this listing did not wait on (the transaction was mined again lower than the
 * height recorded, or before a lag was noticed) is checked against Counterparty's balances now;
 * one still in the mempool waits; one whose transaction is unknown vanished.
 */
async function settleAtTip(tx: Tx, l: ListingRow, tip: { height: number; hash: string }, at: number, chain: Chain): Promise<void> {
  const out = await chain.bitcoin.getTxOut(l.utxo_txid, l.utxo_vout, false);
  if (out && out.confirmations >= 1) {
    // The count is only a height under an unchanged tip; otherwise the next block decides.
    if ((await chain.bitcoin.getTip()).hash !== tip.hash) return;
    const held = new Map<string, bigint>();
    for (const b of await chain.counterparty.getUtxoBalances(l.utxo_outpoint)) add(held, b.asset, BigInt(b.quantity_raw));
    if (isExactlyTheUnit(held, l)) await setListingUtxoHeight(tx, l, tip.height - out.confirmations + 1, at);
    else await endListing(tx, l, 'invalid', at, LIVE);
    return;
  }
  if (await chain.bitcoin.getTxOut(l.utxo_txid, l.utxo_vout, true)) return;
  if (!(await chain.bitcoin.getTransaction(l.utxo_txid))) await endListing(tx, l, 'invalid', at, LIVE);
}

/** The block's effect on reused units' listings (before spends are applied). */
export async function followReused(tx: Tx, b: IndexedBlock, at: number, chain: Chain): Promise<void> {
  const h = b.block.height;
  const inBlock = new Set(b.block.txs.map((t) => t.txid));

  const recorded = await tx.selectFrom('listings').selectAll().where('utxo_height', '=', h).where('state', 'in', LIVE).execute();
  for (const l of recorded) if (!inBlock.has(l.utxo_txid)) await setListingUtxoHeight(tx, l, null, at);

  const waiting = await tx
    .selectFrom('listings')
    .innerJoin('listing_drafts', 'listing_drafts.id', 'listings.draft_id')
    .selectAll('listings')
    .where('listing_drafts.mode', '=', 'reuse')
    .where('listings.utxo_height', 'is', null)
    .where('listings.state', 'in', LIVE)
    .execute();
  // The chain is asked at the tip only: while catching up, a transaction confirmed in a later
  // block is not in this one yet, and a node without txindex would not find it either.
  let atTip: boolean | undefined;
  for (const l of waiting) {
    if (inBlock.has(l.utxo_txid)) {
      if (isExactlyTheUnit(creditedInBlock(b.events, l), l)) await setListingUtxoHeight(tx, l, h, at);
      else await endListing(tx, l, 'invalid', at, LIVE);
      continue;
    }
    atTip ??= (await chain.bitcoin.getTip()).hash === b.block.hash;
    if (atTip) await settleAtTip(tx, l, { height: h, hash: b.block.hash }, at, chain);
  }
}
