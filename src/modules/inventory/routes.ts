import { Type } from '@sinclair/typebox';
import { sessionSecurity } from '../../http/security.js';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { Address, Nullable, QuantityRaw, Sats, Txid, Vout } from '../../http/validators.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { requireSession } from '../auth/guard.js';
import { ListingStore } from '../listings/store.js';
import { attachable, prepared, MAX_PREPARED } from './service.js';

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
  },
  { additionalProperties: false },
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
}
