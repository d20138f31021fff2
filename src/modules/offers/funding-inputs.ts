/**
 * Bids over a funding transaction that has not confirmed. A slot is an output of its funding
 * transaction, so the watcher's rule (a block spending the slot ends its offers) never fires when
 * the bidder replaces the funding itself — its inputs spent to itself, as a wallet's "cancel"
 * does. The slot then never exists, and its offers would stay on the book, unfillable, until their
 * expiry. So the inputs of such a funding are kept at placement; a block that spends one of them
 * by another transaction ends every slot of the funding (spendSlot: the offers retire `invalid`
 * naming the replacement, and a disconnected block restores them, as for any spent slot); a block
 * that spends them by the funding itself confirmed it. Either way the rows are kept until that
 * block is final, then dropped.
 *
 * A funding the node only dropped (its inputs unspent: a restart without the mempool, an
 * eviction) is not relayed again by the market: that is its owner's call, and doing it could undo
 * a replacement the node lost too. Its offers stay until it is mined, replaced or they end; an
 * accept meanwhile answers 409 state_changed with requires_buyer_action (the funding unconfirmed).
 */
import { hex } from '@scure/base';
import { RawTx } from '@scure/btc-signer';
import type { Context } from '../../context.js';
import type { Tx } from '../../store/db.js';
import type { IndexedBlock } from '../../indexer/indexer.js';
import { spentOutpoints } from '../../indexer/spends.js';
import { FINALITY_DEPTH } from '../transactions/index.js';
import { spendSlot } from './lifecycle.js';

export type FundingInput = { funding_txid: string; outpoint: string };

/** The longest a bid lives (its market expiry, at most 180 days): a funding none of whose bids can still be open is forgotten. */
const FORGET_AFTER_S = 181 * 86_400;

/** The inputs of a funding transaction (raw bytes). */
function fundingInputs(fundingTxid: string, raw: Uint8Array): FundingInput[] {
  return RawTx.decode(raw).inputs.map((i) => ({ funding_txid: fundingTxid, outpoint: `${hex.encode(i.txid)}:${i.index}` }));
}

/** `POST /v1/offers`: the inputs of each named funding transaction still in the mempool (a confirmed one can no longer be replaced). */
export async function mempoolFundingInputs(ctx: Context, slots: ReadonlyArray<{ txid: string; confirmations: number }>): Promise<FundingInput[]> {
  const txids = [...new Set(slots.filter((s) => s.confirmations === 0).map((s) => s.txid))];
  const out: FundingInput[] = [];
  for (const txid of txids) {
    const t = await ctx.chain.bitcoin.getTransaction(txid);
    if (t && t.confirmations === 0) out.push(...fundingInputs(txid, hex.decode(t.hex)));
  }
  return out;
}

/** Kept with the placement, in its transaction (a funding placed twice keeps one row per input). */
export async function recordFundingInputs(tx: Tx, rows: readonly FundingInput[], now: number): Promise<void> {
  if (!rows.length) return;
  await tx
    .insertInto('offer_funding_inputs')
    .values(rows.map((r) => ({ ...r, settled_height: null, created_at: now })))
    .onConflict((oc) => oc.columns(['funding_txid', 'outpoint']).doNothing())
    .execute();
}

/** The watcher's step for a block: a funding confirmed or replaced settles; a replaced one's slots end. */
export async function watchFundingInputs(tx: Tx, b: IndexedBlock, at: number): Promise<void> {
  const height = b.block.height;
  // Only fundings not yet settled: a handful (bids placed over the mempool), not the block's inputs.
  const rows = await tx.selectFrom('offer_funding_inputs').select(['funding_txid', 'outpoint']).where('settled_height', 'is', null).execute();
  const spent = rows.length ? spentOutpoints(b) : new Map<string, string>();
  const settled = new Map<string, string>();
  for (const r of rows) {
    const by = spent.get(r.outpoint);
    if (by && !settled.has(r.funding_txid)) settled.set(r.funding_txid, by);
  }
  for (const [funding, by] of settled) {
    if (by !== funding) {
      // Every slot of the replaced funding, found on the outpoint index: `txid:` sorts all of them
      // between `txid:` and `txid;` (';' follows ':').
      const slots = await tx.selectFrom('offer_slots').selectAll().where('outpoint', '>', `${funding}:`).where('outpoint', '<', `${funding};`).where('state', 'in', ['open', 'closed']).execute();
      for (const s of slots) await spendSlot(tx, s, by, height, at);
    }
    await tx.updateTable('offer_funding_inputs').set({ settled_height: height }).where('funding_txid', '=', funding).where('settled_height', 'is', null).execute();
  }
  await tx.deleteFrom('offer_funding_inputs').where('settled_height', '<=', height - FINALITY_DEPTH).execute();
  await tx.deleteFrom('offer_funding_inputs').where('settled_height', 'is', null).where('created_at', '<', at - FORGET_AFTER_S).execute();
}

/** A disconnected block: the fundings it settled are open again (the slots it ended come back through unspendSlots). */
export async function unsettleFundingInputs(tx: Tx, fromHeight: number): Promise<void> {
  await tx.updateTable('offer_funding_inputs').set({ settled_height: null }).where('settled_height', '>=', fromHeight).execute();
}
