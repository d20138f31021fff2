/** Wire schemas of the checkout, written once for validation, types and the OpenAPI. */
import { Type } from '@sinclair/typebox';
import { SettlementFields } from '../../settlement/operation.js';
import { Address, AssetId, FeeRate, Id, Nullable, PsbtHex, Sats, Txid, UnixSeconds, Vout } from '../../http/validators.js';
import { TapKey } from '../listings/index.js';
import { EndsOffers } from '../../trade/coins.js';
import { MAX_LINES, MAX_NAMED_FUNDING, MAX_UNITS } from './rules.js';

const ListingLine = Type.Object(
  {
    listing_id: { ...Id, description: 'a listing id (lst_…): that unit, sold whole' },
    max_price_sats: Type.Optional(
      Sats({
        minimum: 1,
        description:
          'the most the caller will pay for this unit, usually the price it read. A listing repriced above it since that read is refused with 409 state_changed (`listing_id`, `price_sats`, `max_price_sats`), so a buyer re-reads instead of being quoted a price it never saw',
      }),
    ),
  },
  { additionalProperties: false },
);
const AssetLine = Type.Object(
  {
    asset: AssetId,
    quantity: Type.Integer({ minimum: 1, maximum: MAX_UNITS, description: `how many units (listings) of the asset, the cheapest fillable first; 1 to ${MAX_UNITS}` }),
  },
  { additionalProperties: false },
);

export const QuoteBody = Type.Object(
  {
    lines: Type.Array(Type.Union([ListingLine, AssetLine]), {
      minItems: 1,
      maxItems: MAX_LINES,
      description: `1 to ${MAX_LINES} lines, at most ${MAX_UNITS} units in all, no listing named twice: \`{listing_id}\` or \`{asset, quantity}\``,
    }),
    buyer_address: Type.Optional({ ...Address, description: 'the signing address that pays (P2WPKH or P2TR); default and only allowed value: the session address' }),
    delivery_mode: Type.Optional(Type.Union([Type.Literal('detached'), Type.Literal('attached')], { description: 'default detached' })),
    delivery_address: Type.Optional({ ...Address, description: 'who receives the units; default buyer_address' }),
    fee_rate: Type.Optional({ ...FeeRate, description: "network fee rate in sat/vB, 0.1 to 500; default the chain's half-hour estimate" }),
    buyer_tap_internal_key: Type.Optional({
      ...TapKey,
      description: "a P2TR buyer's x-only BIP-86 internal key (64 hex); when given, every buyer input carries it as tapInternalKey for wallets that need it to sign. It must tweak to buyer_address (400 otherwise)",
    }),
    funding: Type.Optional(
      Type.Array(Type.Object({ txid: Txid, vout: Vout }, { additionalProperties: false }), {
        minItems: 1,
        maxItems: MAX_NAMED_FUNDING,
        description: `the buyer's coins to spend, 1 to ${MAX_NAMED_FUNDING} outputs of buyer_address, spent in this order as far as needed. Each is read from Bitcoin Core (gettxout), not from an address index, so a wallet that knows its coins quotes even when the market's UTXO source is down. Each must be unspent (409 state_changed otherwise), pay buyer_address, be confirmed in a block Counterparty has parsed (400 with reason unconfirmed and retryable true otherwise), carry no Counterparty balance and not be claimed by a settlement in flight (409). A named coin may back the buyer's open offers: the reply's ends_offers lists those it would end. Default: the market picks from the buyer's spendable coins, largest first, never a coin that backs an open offer.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const CompleteBody = Type.Object(
  { psbt_hex: { ...PsbtHex, description: 'the quote PSBT with the buyer inputs (inputs_to_sign) signed ALL (P2TR DEFAULT accepted); partial or finalized' } },
  { additionalProperties: false },
);

export const QuoteParams = Type.Object({ id: { ...Id, description: 'quote id (cq_…)' } }, { additionalProperties: false });

const Line = Type.Object(
  {
    listing_id: Type.String(),
    asset: Type.String(),
    asset_longname: Nullable(Type.String()),
    quantity_raw: Type.String(),
    seller: Type.String(),
    price_sats: Sats({ minimum: 1 }),
    platform_fee_sats: Sats({ description: 'this unit\'s share of the platform fee' }),
    utxo_txid: Txid,
    utxo_vout: Vout,
  },
  { additionalProperties: false },
);

export const Operation = Type.Object(
  {
    id: Type.String({ description: 'quote id (cq_…)' }),
    status: Type.Union(['quoted', 'expired', 'broadcasting', 'broadcast', 'confirmed', 'failed'].map((s) => Type.Literal(s)), {
      description:
        'quoted (sign and complete before expires_at) | expired (read time; quote again) | broadcasting (journaled, the network has not accepted it yet; recovery keeps relaying; do not re-sign) | broadcast (in the mempool) | confirmed (seen in a block; a reorg returns it to broadcast) | failed (refused by the node or an input was spent elsewhere; every claim was released; quote again)',
    }),
    psbt_hex: Nullable(Type.String({ description: 'the unsigned checkout PSBT; only while status is quoted' })),
    inputs_to_sign: Type.Array(Type.Integer({ minimum: 0 }), { description: 'the buyer input indexes to sign (input 0 first)' }),
    sighash: Type.Literal('ALL'),
    expected_txid: Txid,
    txid: Nullable({ ...Txid, description: 'the settlement txid once completed (equals expected_txid)' }),
    lines: Type.Array(Line, { description: 'in PSBT pair order: line k is input/output k + 1' }),
    totals: Type.Object(
      {
        price_sats: Sats(),
        platform_fee_sats: Sats(),
        network_fee_sats: Sats(),
        delivery_sats: Sats({ description: '330 for attached delivery, else 0' }),
        total_sats: Sats({ description: 'what the buyer pays: price + platform fee + network fee + delivery' }),
        asset_utxo_sats: Sats({
          description: "the listed asset UTXOs' own sats: the sellers sign them away with their units and they return to the buyer in the change, so the buyer's wallet balance drops by total_sats − asset_utxo_sats",
        }),
      },
      { additionalProperties: false },
    ),
    fee_rate: Type.Number(),
    delivery: Type.Object(
      { mode: Type.Union([Type.Literal('detached'), Type.Literal('attached')]), address: Type.String() },
      { additionalProperties: false },
    ),
    buyer_address: Type.String(),
    expires_at: { ...UnixSeconds, description: "the quote's deadline: sign and complete before it (10 minutes after quoting; not the listings' own market expiries)" },
    reserves_inventory: Type.Literal(false),
    created_at: UnixSeconds,
    completed_at: Nullable(UnixSeconds),
    ...SettlementFields,
    ends_offers: Type.Optional({ ...EndsOffers, description: `quote reply only, when body.funding named coins: ${EndsOffers.description}` }),
    skipped_own_listings: Type.Optional(Type.Array(Type.String(), { description: 'quote reply only: {listing_id} lines skipped because the caller sells them' })),
  },
  { title: 'CheckoutQuote', additionalProperties: false },
);
