/**
 * What an address can still attach: its address-level Counterparty balance minus what open
 * drafts already promised (their quantities, and XCP for their attach fees). A signed attach
 * is no longer "promised" once Counterparty has parsed the block that confirmed it (it is then
 * debited); not merely once Bitcoin confirmed it: Counterparty's API reads ready while one
 * block behind and serves the balance from before that block.
 */
import type { Context } from '../../context.js';
import { XCP } from '../../counterparty/asset-names.js';
import type { CpBalance } from '../../chain/ports.js';
import type { DraftRow, ListingStore } from './store.js';

export interface Commitments {
  /** Raw quantities promised per asset (XCP includes attach fees). */
  byAsset: Map<string, bigint>;
  drafts: DraftRow[];
}

/** Address-level (not UTXO-attached) balances per asset. */
export function addressLevel(balances: CpBalance[]): Map<string, bigint> {
  const held = new Map<string, bigint>();
  for (const b of balances) {
    if (b.utxo !== null) continue;
    held.set(b.asset, (held.get(b.asset) ?? 0n) + BigInt(b.quantity_raw));
  }
  return held;
}

/**
 * For a preflight (`seller` given), an unsigned draft commits only for the seller whose session
 * made it: `asset_source` needs no session, so anyone can name any address, and counting
 * strangers' unsigned drafts would let anyone lock a source out of attaching (and out of its
 * coins, see attach-compose.ts). A signed attach (in flight) commits for every seller: the
 * source's own signature authorized it. Without `seller` (the public attachable read) every
 * open draft counts.
 */
export async function commitments(ctx: Context, store: ListingStore, source: string, now: number, seller?: string): Promise<Commitments> {
  const drafts = (await store.openAttachDrafts(source, now)).filter(
    (d) => seller === undefined || d.status !== 'awaiting_attach_signature' || d.seller === seller,
  );
  const byAsset = new Map<string, bigint>();
  const add = (asset: string, q: bigint) => byAsset.set(asset, (byAsset.get(asset) ?? 0n) + q);
  let parsedHeight: number | undefined;
  for (const d of drafts) {
    if (d.status !== 'awaiting_attach_signature' && d.attach_txid) {
      const tx = await ctx.chain.bitcoin.getTransaction(d.attach_txid);
      if (tx && tx.confirmations > 0 && tx.block_height !== null) {
        parsedHeight ??= (await ctx.chain.counterparty.getStatus()).counterparty_height;
        if (parsedHeight >= tx.block_height) continue;
      }
    }
    add(d.asset, BigInt(d.quantity_raw));
    add(XCP, BigInt(d.protocol_fee_raw));
  }
  return { byAsset, drafts };
}
