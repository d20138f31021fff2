/** How offers and placements read on the wire. */
import type { Db } from '../../store/db.js';
import type { PolicyTarget } from '../market/index.js';
import { DELIVERY_UTXO_SATS } from './rules.js';
import { offerStatus, signatureValidity } from './rules.js';
import type { OfferTables } from './tables.js';

type PlacementRow = OfferTables['offer_placements'];
type OfferRow = OfferTables['offers'];

/** A placement's target as it reads back: the normalized policy without its kind, and the exact unit when named. */
export type TargetOut = Omit<PolicyTarget, 'kind'> & { target_outpoint?: { txid: string; vout: number } };

export interface PlacementResult {
  placement_id: string;
  slot_count: number;
  target_count: number;
  offer_count: number;
  bidder: string;
  price_sats: number;
  platform_fee_sats: number;
  funding_slots: Array<{ funding_slot_id: string; txid: string; vout: number; offer_ids: string[] }>;
  targets: TargetOut[];
  expires_at: number;
  created_at: number;
  delivery: { mode: 'detached' | 'attached'; address: string; utxo_value_sats?: number };
  funding?: { txid: string };
  signature_validity: { marketplace_expires_at: number; bitcoin_expires_at: null; bitcoin_invalidation: { type: 'spend_funding_outpoint'; outpoints: Array<{ txid: string; vout: number }> } };
}

export const deliveryOf = (r: Pick<PlacementRow, 'delivery_mode' | 'receive_address'>) => ({
  mode: r.delivery_mode,
  address: r.receive_address,
  ...(r.delivery_mode === 'attached' ? { utxo_value_sats: DELIVERY_UTXO_SATS } : {}),
});

/** The spec's offer placement result, read back from the rows (also for an identical repeat). */
export async function placementResult(db: Db, p: PlacementRow): Promise<PlacementResult> {
  const [slots, offers] = await Promise.all([
    db.selectFrom('offer_slots').selectAll().where('placement_id', '=', p.id).orderBy('created_at').orderBy('id').execute(),
    db.selectFrom('offers').select(['id', 'slot_id']).where('placement_id', '=', p.id).orderBy('target_index').execute(),
  ]);
  const bySlot = new Map<string, string[]>();
  for (const o of offers) bySlot.set(o.slot_id, [...(bySlot.get(o.slot_id) ?? []), o.id]);
  const targets = (JSON.parse(p.targets) as Array<TargetOut & { kind: string; target_outpoint: TargetOut['target_outpoint'] | null }>).map(
    ({ kind: _kind, target_outpoint, ...t }): TargetOut => ({ ...(target_outpoint ? { target_outpoint } : {}), ...t }),
  );
  const ordered = [...slots].sort((a, b) => a.txid.localeCompare(b.txid) || a.vout - b.vout);
  return {
    placement_id: p.id,
    slot_count: slots.length,
    target_count: targets.length,
    offer_count: offers.length,
    bidder: p.bidder,
    price_sats: Number(p.price_sats),
    platform_fee_sats: Number(p.platform_fee_sats),
    funding_slots: ordered.map((s) => ({ funding_slot_id: s.id, txid: s.txid, vout: s.vout, offer_ids: bySlot.get(s.id) ?? [] })),
    targets,
    expires_at: Number(p.expires_at),
    created_at: Number(p.created_at),
    delivery: deliveryOf(p),
    ...(p.funding_txid ? { funding: { txid: p.funding_txid } } : {}),
    signature_validity: {
      marketplace_expires_at: Number(p.expires_at),
      bitcoin_expires_at: null,
      bitcoin_invalidation: { type: 'spend_funding_outpoint', outpoints: ordered.map((s) => ({ txid: s.txid, vout: s.vout })) },
    },
  };
}

/** The bidder's own view of one offer. */
export function offerView(o: OfferRow, now: number) {
  const status = offerStatus(o, now);
  return {
    id: o.id,
    placement_id: o.placement_id,
    funding_slot_id: o.slot_id,
    bidder: o.bidder,
    bid_txid: o.bid_txid,
    bid_vout: o.bid_vout,
    price_sats: Number(o.price_sats),
    platform_fee_sats: Number(o.platform_fee_sats),
    scope: o.scope,
    kind: o.kind,
    asset: o.asset,
    collection: o.collection,
    max_supply_units: o.max_supply_units === null ? null : Number(o.max_supply_units),
    min_supply_units: o.min_supply_units === null ? null : Number(o.min_supply_units),
    issued_year: o.issued_year,
    series: o.series,
    artist: o.artist,
    target_outpoint: o.target_txid === null ? null : { txid: o.target_txid, vout: o.target_vout! },
    delivery: deliveryOf(o),
    status,
    end_reason: status === 'expired' ? 'expired' : o.end_reason,
    expires_at: Number(o.expires_at),
    created_at: Number(o.created_at),
    ended_at: status === 'expired' && o.ended_at === null ? Number(o.expires_at) : o.ended_at === null ? null : Number(o.ended_at),
    signature_validity: signatureValidity(o),
  };
}
export type OfferView = ReturnType<typeof offerView>;
