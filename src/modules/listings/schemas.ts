/** Wire schemas of the seller's side, written once for validation, types and the OpenAPI. */
import { Type } from '@sinclair/typebox';
import { EndsOffers } from '../../trade/coins.js';
import { Address, AssetId, FeeRate, Id, MAX_SATS, Nullable, Outpoint, PositiveQuantityRaw, PsbtHex, QuantityRaw, Sats, Txid, UnixSeconds, Vout } from '../../http/validators.js';

export const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9._:-]+$',
  description: 'client-chosen key, 1 to 100 of [A-Za-z0-9._:-], unique per seller',
});

export const TapKey = Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'x-only BIP-86 internal key, 64 hex' });

export const Price = Sats({ minimum: 1, description: 'ask in sats: 5,000 to 10,000,000,000 (100 BTC); out of range gives 422' });

export const Funding = Type.Array(Outpoint, {
  minItems: 1,
  maxItems: 20,
  description:
    'outpoints of asset_source that pay the attach (used alone, in this order; unconfirmed allowed, e.g. the change of a previous attach). Never an outpoint that carries a Counterparty balance, nor the asset UTXO (out 0) of a draft whose attach is still confirming (400 invalid_request): spent, its unit would move into the new attach\'s asset UTXO.',
});

const AssetUtxo = Type.Object({ txid: Txid, vout: Vout, utxo_value_sats: Sats({ minimum: 1 }) }, { additionalProperties: false });

const Signer = Type.Object(
  {
    address: Type.String(),
    inputs_to_sign: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1, uniqueItems: true }),
    sighash: Type.Literal('ALL'),
  },
  { additionalProperties: false },
);

export const ListingTemplate = Type.Object(
  {
    psbt_hex: Type.String({ description: 'unsigned listing PSBT: in 0 the asset UTXO, out 0 price_sats to the seller' }),
    signer_address: Type.String(),
    inputs_to_sign: Type.Array(Type.Integer({ minimum: 0 })),
    sighash: Type.Literal('SINGLE|ANYONECANPAY'),
    price_sats: Sats({ minimum: 1 }),
  },
  { additionalProperties: false, title: 'ListingTemplate' },
);

export const ListingSubtypeSchema = Type.Union([Type.Literal('plain'), Type.Literal('cosigned')], {
  title: 'ListingProtocolSubtype',
  description:
    'Which kind of listing. `plain`: the unit sits on an output of your address and your listing signature (SINGLE|ANYONECANPAY) is the whole authorization; it protects you from selling below your price, but once a checkout carrying it is broadcast anyone can copy your input/output pair into a higher-fee transaction of their own (mempool sniping), and the signature stays valid until the unit moves. ' +
    '`cosigned`: the unit sits on a taproot output whose key path is your own key (you can always move or withdraw it alone) and whose one script path needs your signature and the market signer\'s; your listing signature is over that script path, and the market adds its signature (SIGHASH_DEFAULT, covering every input and output) only to the exact checkout it journals. Your pair then cannot be lifted into any other transaction: a sniper\'s replacement fails script validation, and a delisted listing can never be completed by anyone holding your old signature. Offers still reach the unit: an exact offer\'s or a collection offer\'s accept spends it by the same script path (you sign that leaf, DEFAULT or ALL, over the whole transaction) and the market signer co-signs that exact transaction too, with one decision per unit across checkouts and accepts, so only one of them can ever be fully signed while it can settle. Needs a P2TR seller and `seller_tap_internal_key`.',
});

const CosignedOutputSchema = Type.Object(
  {
    address: Type.String({ description: 'the co-signed output (P2TR) the unit is attached to' }),
    script_hex: Type.String(),
    tap_internal_key: Type.String({ description: 'your x-only key: the key path (PSBT tap_internal_key)' }),
    tap_merkle_root: Type.String({ description: 'the tree root a key-path signer tweaks with (PSBT tap_merkle_root)' }),
    leaf_script_hex: Type.String({ description: '<seller> OP_CHECKSIGVERIFY <market> OP_CHECKSIG' }),
    control_block_hex: Type.String(),
    market_key_version: Type.Integer({ minimum: 1, description: 'the market signer key named in the leaf' }),
  },
  { additionalProperties: false, title: 'CosignedOutput' },
);

const DraftStatus = Type.Union(
  ['awaiting_attach_signature', 'broadcasting', 'awaiting_indexer', 'prepared', 'ready', 'completed', 'failed', 'expired', 'withdrawn'].map((s) => Type.Literal(s)),
);
const ListingStatus = Type.Union(['pending', 'active', 'reserved', 'sold', 'ended', 'exposed'].map((s) => Type.Literal(s)), {
  description:
    '`exposed`: a checkout carrying this listing\'s signed SINGLE|ANYONECANPAY half reached the network and then failed (replaced, evicted or refused after an unknown broadcast). The half stays valid on Bitcoin until the unit moves, so the listing is off the book, counts and floors, holds its asset UTXO (the unit cannot be listed again) and waits for the seller to rotate the unit (POST /v1/listings/{id}/rotation) or delist.',
});
const EndReason = Type.Union(['owner', 'expired', 'invalid', 'rotated'].map((s) => Type.Literal(s)), {
  description: '`rotated`: the seller\'s rotation moved an exposed unit to a fresh output, voiding the old half; the unit can be listed again from there',
});
export const ListingExposure = Type.Object(
  {
    reason: Type.Union(['checkout_replaced', 'checkout_conflicted', 'checkout_rejected'].map((s) => Type.Literal(s)), {
      description: '`checkout_replaced`: relayed, then replaced or evicted by a conflicting spend; `checkout_conflicted` / `checkout_rejected`: a broadcast whose outcome was unknown, later refused',
    }),
    at: UnixSeconds,
  },
  { additionalProperties: false, title: 'ListingExposure', description: 'Why and since when the listing is exposed; null for a listing whose half never left the market' },
);

export const Draft = Type.Object(
  {
    id: Type.String({ description: 'pf_…' }),
    operation_id: Type.String({ description: 'op_…' }),
    protocol_version: Type.Literal('counterparty_attach_listing_v1'),
    protocol_subtype: ListingSubtypeSchema,
    cosigned_output: Type.Optional(CosignedOutputSchema),
    ends_offers: Type.Optional({
      ...EndsOffers,
      description: 'On a single draft: offers of the address the unsigned attach would end, because a coin named in `funding` backs them (empty otherwise).',
    }),
    purpose: Type.Union([Type.Literal('listing'), Type.Literal('prepare')], {
      description: '`listing` (a listing preflight) or `prepare` (an attach template: the unit is prepared, not listed)',
    }),
    seller: Type.String({ description: 'the SegWit seller and listing signer (utxo_owner for attach templates)' }),
    asset_source: Type.String({ description: 'holder of the address-level balance; owns every attach input' }),
    asset: Type.String(),
    quantity_raw: Type.String(),
    mode: Type.Union([Type.Literal('reuse'), Type.Literal('attach')]),
    status: DraftStatus,
    asset_utxo: Nullable(AssetUtxo),
    fees: Type.Object(
      {
        network: Type.Object({ asset: Type.Literal('BTC'), amount_sats: Sats() }, { additionalProperties: false }),
        protocol: Type.Object(
          {
            asset: Type.Literal('XCP'),
            amount_raw: QuantityRaw,
            actual_amount_raw: Nullable(QuantityRaw),
            observed_block: Nullable(Type.Integer()),
            variable_until_confirmed: Type.Boolean(),
            charged_at: Nullable(Type.String({ description: 'ISO 8601: when the market saw the block that charged the fee' })),
          },
          { additionalProperties: false },
        ),
        platform: Type.Object({ asset: Type.Literal('BTC'), amount_sats: Sats() }, { additionalProperties: false }),
      },
      { additionalProperties: false },
    ),
    attach: Type.Optional(
      Type.Object({ psbt_hex: Type.String(), signers: Type.Array(Signer, { minItems: 1 }) }, { additionalProperties: false }),
    ),
    listing: Type.Optional(ListingTemplate),
    expected_txid: Nullable(Txid),
    attach_txid: Nullable(Txid),
    fee_rate: Nullable(Type.Number()),
    price_sats: Nullable(Sats({ minimum: 1 })),
    next_action: Nullable(Type.Union(['sign_attach', 'wait_for_indexer', 'set_price', 'sign_listing', 'list_again'].map((s) => Type.Literal(s)))),
    expires_at: { ...UnixSeconds, description: "the draft's template deadline: sign and submit the attach within 15 minutes of the draft's creation, or it reads `expired`. Not the listing's market expiry (the `expires_at` you send when you sign the listing)." },
    last_error: Nullable(Type.String()),
    bitcoin_confirmed_at: Nullable(UnixSeconds),
    created_at: UnixSeconds,
    updated_at: UnixSeconds,
    listing_id: Nullable(Type.String()),
    listed_price_sats: Nullable(Sats({ minimum: 1 })),
    listing_status: Nullable(ListingStatus),
    listing_end_reason: Nullable(EndReason),
    listing_exposure: Nullable(ListingExposure),
  },
  { additionalProperties: false, title: 'ListingDraft' },
);

export const FinalizedListing = Type.Object(
  {
    id: Type.String({ description: 'lst_…' }),
    asset: Type.String(),
    seller: Type.String(),
    price_sats: Sats({ minimum: 1 }),
    utxo_txid: Txid,
    utxo_vout: Vout,
    expires_at: { ...UnixSeconds, description: "the listing's market expiry, chosen by the seller (not the draft's 15-minute template deadline)" },
    preflight_id: Type.String(),
    state: ListingStatus,
    version: Type.Integer({ minimum: 1 }),
    protocol_subtype: ListingSubtypeSchema,
  },
  { additionalProperties: false },
);

export const PreflightBody = Type.Object(
  {
    seller: Address,
    asset: AssetId,
    quantity_raw: PositiveQuantityRaw,
    mode: Type.Optional(Type.Union([Type.Literal('reuse'), Type.Literal('attach')], { description: '`reuse` or `attach`' })),
    asset_source: Type.Optional(Address),
    asset_utxo: Type.Optional(Outpoint),
    price_sats: Type.Optional(Price),
    fee_rate: Type.Optional(FeeRate),
    funding: Type.Optional(Funding),
    idempotency_key: IdempotencyKey,
    seller_tap_internal_key: Type.Optional(TapKey),
    asset_source_tap_internal_key: Type.Optional(TapKey),
    protocol_subtype: Type.Optional(ListingSubtypeSchema),
  },
  { additionalProperties: false },
);

export const AttachTemplateBody = Type.Object(
  {
    utxo_owner: Address,
    asset: AssetId,
    quantity_raw: PositiveQuantityRaw,
    asset_source: Type.Optional(Address),
    fee_rate: Type.Optional(FeeRate),
    funding: Type.Optional(Funding),
    idempotency_key: Type.Optional(IdempotencyKey),
    utxo_owner_tap_internal_key: Type.Optional(TapKey),
    asset_source_tap_internal_key: Type.Optional(TapKey),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
export { MAX_SATS, PsbtHex };
