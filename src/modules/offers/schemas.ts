/** The bid side's wire shapes, written once for validation, types and the OpenAPI document. */
import { Type } from '@sinclair/typebox';
import { Address, AssetId, FeeRate, Hex, Id, Nullable, Outpoint, Sats, Txid, UnixSeconds, Vout } from '../../http/validators.js';
import { MAX_BIDS, MAX_FUNDING_SLOTS, MAX_NAMED_FUNDING, MAX_TARGETS } from './rules.js';
import { EndsOffers } from '../../trade/coins.js';
import { traitFields } from '../market/index.js';

const SmallInt = (min: number, description: string) => Type.Integer({ minimum: min, maximum: 1_000_000_000, description });

export const OfferTarget = Type.Object(
  {
    scope: Type.Union([Type.Literal('asset'), Type.Literal('collection')], { description: 'asset: one asset (any unit of it, or the exact target_outpoint); collection: any member matching the trait filters' }),
    asset: Type.Optional(Nullable(AssetId)),
    collection: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, pattern: '^[a-z0-9][a-z0-9-]*$', description: 'collection slug' }))),
    max_supply_units: Type.Optional(Nullable(SmallInt(1, 'the asset\'s curated max supply is known and at most this'))),
    min_supply_units: Type.Optional(Nullable(SmallInt(1, 'the asset\'s curated max supply is known and at least this'))),
    issued_year: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 9999 }))),
    series: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }))),
    artist: Type.Optional(Nullable(Type.String({ maxLength: 200, description: 'the credit, ASCII case-insensitive' }))),
    target_outpoint: Type.Optional(Nullable(Outpoint)),
  },
  { title: 'OfferTarget', additionalProperties: false, description: 'Offer target (eligibility policy). target_outpoint only with asset scope: an exact unit, never substituted.' },
);

/** A bid of POST /v1/offers: an existing output, named in full. */
const Bid = Type.Object({ txid: Txid, vout: Vout }, { additionalProperties: false });
/** A bid of POST /v1/funded-offers: an output of the funding transaction; its txid, when given, must be that transaction's. */
const FundedBid = Type.Object({ txid: Type.Optional(Txid), vout: Vout }, { additionalProperties: false });

const bidsOf = <T extends typeof Bid | typeof FundedBid>(bid: T) =>
  Type.Array(bid, { minItems: 1, maxItems: MAX_BIDS, description: `1 to ${MAX_BIDS} funding outputs; each pays the session address exactly the price (+330 sats for attached delivery); N outputs give capacity N` });

const placementFields = {
  bids: bidsOf(Bid),
  targets: Type.Array(OfferTarget, { minItems: 1, maxItems: MAX_TARGETS, description: `1 to ${MAX_TARGETS} alternative targets; every output backs every target (at most 1,000 offers)` }),
  expires_at: Type.Integer({ minimum: 0, maximum: 4_102_444_800, description: "the market's expiry of the bids (unix s, at most 180 days ahead). Bitcoin-level validity ends only when the funding output is spent." }),
  receive_address: Type.Optional(Address),
  delivery_mode: Type.Optional(Type.Union([Type.Literal('detached'), Type.Literal('attached')], { default: 'detached' })),
};

export const OffersBody = Type.Object(placementFields, { additionalProperties: false });
export const FundedOffersBody = Type.Object(
  { funding_tx_hex: Hex('the signed, finalized funding transaction (raw hex)'), ...placementFields, bids: bidsOf(FundedBid) },
  { additionalProperties: false },
);

export const FundingBody = Type.Object(
  {
    price_sats: Sats({ minimum: 1, description: 'the offer price of each slot' }),
    slots: Type.Integer({ minimum: 1, maximum: MAX_FUNDING_SLOTS, description: `funding slots to create, 1 to ${MAX_FUNDING_SLOTS}` }),
    delivery_mode: Type.Optional(Type.Union([Type.Literal('detached'), Type.Literal('attached')], { default: 'detached' })),
    fee_rate: Type.Optional(FeeRate),
    funding: Type.Optional(
      Type.Array(Type.Object({ txid: Txid, vout: Vout }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: MAX_NAMED_FUNDING,
        description: `the coins to spend, 1 to ${MAX_NAMED_FUNDING} outputs of the session address, spent in this order as far as needed: each read from Bitcoin Core (gettxout), not an address index, and unspent (409 state_changed), confirmed in a block Counterparty has parsed (400, reason unconfirmed, retryable), asset-free and unclaimed (409); default: the market picks, largest first, never a coin that backs one of the address's open offers. A named coin may back open offers: the answer's \`ends_offers\` lists the offers it would end.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const FundingResult = Type.Object({
  psbt_hex: Type.String(),
  expected_txid: Txid,
  signer_address: Type.String(),
  inputs_to_sign: Type.Array(Type.Integer({ minimum: 0 })),
  sighash: Type.Literal('ALL'),
  price_sats: Sats(),
  slot_value_sats: Sats(),
  delivery_mode: Type.String(),
  bids: Type.Array(Type.Object({ txid: Txid, vout: Vout }), { description: 'the bids to name in /v1/funded-offers' }),
  network_fee_sats: Sats(),
  change_sats: Sats(),
  fee_rate: Type.Number(),
  vsize: Type.Integer(),
  ends_offers: EndsOffers,
});

const { kind: _kind, ...targetFields } = traitFields;
const TargetOut = Type.Object({ target_outpoint: Type.Optional(Outpoint), ...targetFields });

const Delivery = Type.Object({ mode: Type.String(), address: Type.String(), utxo_value_sats: Type.Optional(Type.Integer()) });

export const PlacementResult = Type.Object({
  placement_id: Type.String(),
  slot_count: Type.Integer(),
  target_count: Type.Integer(),
  offer_count: Type.Integer(),
  bidder: Type.String(),
  price_sats: Sats(),
  platform_fee_sats: Sats({ description: 'the market fee the accepting seller pays out of the price' }),
  funding_slots: Type.Array(Type.Object({ funding_slot_id: Type.String(), txid: Txid, vout: Vout, offer_ids: Type.Array(Type.String(), { description: 'offer_ids[i] is the offer over targets[i]' }) })),
  targets: Type.Array(TargetOut),
  expires_at: UnixSeconds,
  created_at: UnixSeconds,
  delivery: Delivery,
  funding: Type.Optional(Type.Object({ txid: Txid })),
  signature_validity: Type.Object({
    marketplace_expires_at: UnixSeconds,
    bitcoin_expires_at: Type.Null(),
    bitcoin_invalidation: Type.Object({ type: Type.Literal('spend_funding_outpoint'), outpoints: Type.Array(Outpoint) }),
  }),
});

export const OfferOut = Type.Object({
  id: Type.String(),
  placement_id: Type.String(),
  funding_slot_id: Type.String(),
  bidder: Type.String(),
  bid_txid: Txid,
  bid_vout: Vout,
  price_sats: Sats(),
  platform_fee_sats: Sats(),
  ...traitFields,
  target_outpoint: Nullable(Outpoint),
  delivery: Delivery,
  status: Type.String({ description: 'active, filled, cancelled, expired (at read time past expires_at), retired, consumed' }),
  end_reason: Nullable(Type.String({ description: 'cancelled, expired, superseded (a sibling over the slot filled), invalid (the slot was spent elsewhere, or its funding transaction was replaced before it confirmed), filled, consumed' })),
  expires_at: UnixSeconds,
  created_at: UnixSeconds,
  ended_at: Nullable(UnixSeconds),
  signature_validity: Type.Object({
    marketplace_expires_at: UnixSeconds,
    bitcoin_expires_at: Type.Null(),
    bitcoin_invalidation: Type.Object({ type: Type.Literal('spend_funding_outpoint'), outpoint: Outpoint }),
  }),
});

export const OfferIds = Type.Object(
  { offer_ids: Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true }) },
  { additionalProperties: false },
);

export const CancelOutcomes = Type.Array(
  Type.Object({ offer_id: Type.String(), ok: Type.Boolean(), status: Type.String(), code: Type.Optional(Type.String()) }),
);

export const Review = Type.Object({
  standard: Type.Literal('counterparty-marketplace'),
  action: Type.Literal('cancel_offers'),
  offerIds: Type.Array(Type.String()),
  coins: Type.Array(Type.Object({ outpoint: Type.Object({ txid: Txid, vout: Type.Integer({ minimum: 0 }) }), stillCommitted: Type.Boolean() })),
});
