import { Type } from '@sinclair/typebox';
import { sessionSecurity } from '../../http/security.js';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { Address, FeeRate, Nullable, QuantityRaw, Sats, Txid, Vout } from '../../http/validators.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { requireSession } from '../auth/index.js';
import { ListingStore } from '../listings/index.js';
import { attachable, prepared, MAX_PREPARED } from './service.js';
import { composeWithdrawal } from './cosigned-withdrawal.js';

const tags = ['inventory'];

const AttachableResult = Type.Object(
  {
    address: Type.String(),
    attach_fee_raw: { ...QuantityRaw, description: 'XCP (raw) one attach would pay now; variable until the attach confirms' },
    assets: Type.Array(
      Type.Object(
        {
          asset: Type.String(),
          asset_longname: Nullable(Type.String()),
          quantity_raw: { ...QuantityRaw, description: 'address-level balance (not attached to a UTXO)' },
          committed_raw: { ...QuantityRaw, description: 'promised to open drafts of this address (their quantities and, for XCP, their attach fees), whoever made them. A preflight counts only its own seller\'s unsigned drafts and every signed attach still confirming, so it can succeed where another session\'s unsigned drafts make this read 0.' },
          attachable_raw: { ...QuantityRaw, description: 'quantity_raw − committed_raw, at least 0' },
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const PreparedUnit = Type.Object(
  {
    asset: Type.String(),
    asset_longname: Nullable(Type.String()),
    quantity_raw: QuantityRaw,
    asset_utxo: Type.Object({ txid: Txid, vout: Vout, utxo_value_sats: Sats({ minimum: 1 }) }, { additionalProperties: false }),
    confirmations: Type.Integer({ minimum: 1 }),
    listing_id: Nullable(Type.String()),
    listing_status: Nullable(Type.Union(['pending', 'active', 'reserved', 'exposed'].map((s) => Type.Literal(s)), { description: '`exposed`: its signed half was broadcast in a failed checkout; rotate the unit (POST /v1/listings/{id}/rotation)' })),
    listed_price_sats: Nullable(Sats({ minimum: 1 })),
    custody: Type.Union([Type.Literal('address'), Type.Literal('cosigned')], {
      description:
        '`address`: an output of the session address. `cosigned`: a co-signed listing output (taproot, your key as internal key plus a leaf that also needs the market signer); you can always take it back out alone by the key path: POST /v1/inventory/cosigned-withdrawals composes that transaction. Offers reach it where it sits: exact-offer and collection-offer accepts spend it by its leaf, co-signed by the market signer.',
    }),
  },
  { additionalProperties: false },
);

const WithdrawalBody = Type.Object(
  { asset_utxo: Type.Object({ txid: Txid, vout: Vout }, { additionalProperties: false }), fee_rate: Type.Optional(FeeRate) },
  { additionalProperties: false, title: 'CosignedWithdrawalRequest' },
);

const Withdrawal = Type.Object(
  {
    psbt_hex: Type.String({ description: 'unsigned; input 0 carries tap_internal_key and tap_merkle_root for the key path, inputs 1… your fee coins' }),
    expected_txid: Txid,
    signer_address: Type.String(),
    inputs_to_sign: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 }),
    sighash: Type.Literal('DEFAULT', { description: 'SIGHASH_DEFAULT (64-byte signatures); ALL (0x01) is as good' }),
    asset_utxo: Type.Object({ txid: Txid, vout: Vout, utxo_value_sats: Sats({ minimum: 1 }) }, { additionalProperties: false }),
    tap_internal_key: Type.String({ description: 'your x-only key, the co-signed output\'s internal key' }),
    tap_merkle_root: Type.String({ description: 'the hash of the co-signed leaf, which the key path tweaks with' }),
    delivery: Type.Object({ address: Type.String(), vout: Type.Literal(0) }, { additionalProperties: false, description: 'where the unit moves: output 0, 330 sats to your address' }),
    fee_rate: Type.Number(),
    network_fee_sats: Sats(),
    vsize: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false, title: 'CosignedWithdrawal' },
);

export function inventoryRoutes(app: App, ctx: Context): void {
  const store = new ListingStore(ctx.store.db);

  app.get(
    '/v1/inventory/attachable',
    {
      config: { limit: 'uncached_read', cache: { public: 10 } },
      schema: {
        tags,
        summary: 'Balances an address can attach',
        description:
          'Public; edge-cached 10 seconds. `address` is the asset_source to be (P2PKH, P2WPKH or P2TR; another family is 400 unsupported_address_type). Lists its address-level Counterparty balances (UTXO-attached ones excluded), what open drafts of that source already committed, and what is left to attach; plus the XCP an attach costs now. Right after a delivery a balance can read 0 until the indexer catches up (about 2 to 3 minutes).',
        querystring: Type.Object({ address: Address }, { additionalProperties: false }),
        response: { 200: Ok(AttachableResult), ...errorResponses },
      },
    },
    async (req) => {
      const address = requireAddressRole(req.query.address, 'source', ctx.config.NETWORK, 'query.address');
      return { result: await attachable(ctx, store, address) };
    },
  );

  app.get(
    '/v1/inventory/prepared',
    {
      config: { limit: 'uncached_read', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Attached, confirmed units the session address owns',
        description: `Session required; never cached. Every confirmed, unspent UTXO of the session address that holds exactly one asset (a unit that can be listed with a reuse preflight, or accept an offer), listed or not: \`listing_id\`, \`listing_status\` and \`listed_price_sats\` describe its open listing (pending, active or reserved, or exposed until the unit is rotated), null when none. UTXOs holding several assets are not units and are left out. At most ${MAX_PREPARED} UTXOs are read.`,
        response: { 200: Ok(Type.Array(PreparedUnit)), ...errorResponses },
      },
    },
    async (req) => ({ result: await prepared(ctx, store, requireSession(req)) }),
  );

  app.post(
    '/v1/inventory/cosigned-withdrawals',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Take a unit out of its co-signed output by the key path',
        description:
          'Session required. Composes the transaction that moves a unit from one of your co-signed outputs (custody `cosigned` in GET /v1/inventory/prepared) back to your address, by the key path: only your signature, never the market\'s. Layout: in 0 the co-signed output (key path: `tap_internal_key`, `tap_merkle_root`), in 1… your asset-free confirmed coins for the fee, out 0 330 sats to your address (no message: Counterparty moves the unit to the first output), out 1 your change. Sign every input DEFAULT or ALL and broadcast it with your wallet: the market relays nothing and reserves nothing. A listing on the output ends when the spend is seen; a reserved one (a buyer\'s checkout in flight) competes with your transaction on Bitcoin. 404 not_found when the outpoint is not a co-signed output of the session address; 409 state_changed when it is spent; 422 insufficient_funds when your asset-free BTC cannot pay the fee.',
        body: WithdrawalBody,
        response: { 200: Ok(Withdrawal), ...errorResponses },
      },
    },
    async (req) => ({ result: await composeWithdrawal(ctx, requireSession(req), req.body.asset_utxo, req.body.fee_rate) }),
  );
}
