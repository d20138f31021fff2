/**
 * The checkout operation as the buyer reads it (the quote reply, the completion reply and the
 * recovery read share it). No signature or raw transaction ever appears; the unsigned quote
 * PSBT is shown only while the quote can still be signed.
 *
 * status: quoted → (expired, read time) | broadcasting (journaled, not yet accepted by the
 * network) → broadcast (relayed) → confirmed (seen in a block by the indexer; a reorg returns it
 * to broadcast) | failed (the node refused it or an input was spent elsewhere; claims released).
 */
import type { SettlementRow } from '../../settlement/journal.js';
import { settledStatus, settlementFields } from '../../settlement/operation.js';
import { splitOutpoint } from '../../trade/outpoints.js';
import { DELIVERY_UTXO_SATS } from '../../trade/rules.js';
import type { EndsOffers } from '../../trade/coins.js';
import { quoteLines, type QuoteRow } from './store.js';

export type OperationStatus = 'quoted' | 'expired' | 'broadcasting' | 'broadcast' | 'confirmed' | 'failed';

export function operationStatus(q: QuoteRow, s: SettlementRow | undefined, now: number): OperationStatus {
  if (q.status === 'quoted') return q.expires_at <= now ? 'expired' : 'quoted';
  return s ? settledStatus(s) : 'broadcasting';
}

export function operationView(q: QuoteRow, s: SettlementRow | undefined, now: number, tipHeight: number | null, extra: { skippedOwn?: string[]; endsOffers?: EndsOffers } = {}) {
  const status = operationStatus(q, s, now);
  const delivery = q.delivery_mode === 'attached' ? DELIVERY_UTXO_SATS : 0;
  const lines = quoteLines(q);
  return {
    id: q.id,
    status,
    psbt_hex: status === 'quoted' ? q.psbt : null,
    inputs_to_sign: JSON.parse(q.inputs_to_sign) as number[],
    sighash: 'ALL' as const,
    expected_txid: q.expected_txid,
    txid: q.status === 'completed' ? q.expected_txid : null,
    lines: lines.map((l) => {
      const at = splitOutpoint(l.utxo_outpoint);
      return {
        listing_id: l.listing_id,
        asset: l.asset,
        asset_longname: l.asset_longname,
        quantity_raw: l.quantity_raw,
        seller: l.seller,
        price_sats: l.price_sats,
        platform_fee_sats: l.platform_fee_sats,
        utxo_txid: at.txid,
        utxo_vout: at.vout,
      };
    }),
    totals: {
      price_sats: q.price_sats,
      platform_fee_sats: q.platform_fee_sats,
      network_fee_sats: q.network_fee_sats,
      delivery_sats: delivery,
      total_sats: q.price_sats + q.platform_fee_sats + q.network_fee_sats + delivery,
      asset_utxo_sats: lines.reduce((t, l) => t + l.utxo_value_sats, 0),
    },
    fee_rate: q.fee_rate,
    delivery: { mode: q.delivery_mode, address: q.delivery_address },
    buyer_address: q.buyer_address,
    expires_at: q.expires_at,
    reserves_inventory: false as const,
    created_at: q.created_at,
    completed_at: q.completed_at,
    ...settlementFields(s, status === 'failed', tipHeight),
    ...(extra.endsOffers ? { ends_offers: extra.endsOffers } : {}),
    ...(extra.skippedOwn ? { skipped_own_listings: extra.skippedOwn } : {}),
  };
}

export type OperationView = ReturnType<typeof operationView>;
