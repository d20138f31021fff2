import { Type } from '@sinclair/typebox';
import { sessionSecurity } from '../../http/security.js';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { FeeRate, Id, Sats, Txid, UnixSeconds, Vout } from '../../http/validators.js';
import { ownedOr404, requireSession } from '../auth/index.js';
import type { ListingStore } from './store.js';
import { ListingMaintenance } from './listing-maint.js';
import { Rotation } from './rotation.js';
import { IdParams, ListingTemplate, Price, PsbtHex } from './schemas.js';
import { MAX_PRICE_SATS, MIN_PRICE_SATS } from './rules.js';

const tags = ['listings'];
const ListingId = { ...Id, description: 'listing id (lst_…)' };

const Outcome = Type.Object(
  {
    index: Type.Integer({ minimum: 0 }),
    listing_id: Type.String(),
    ok: Type.Boolean(),
    state: Type.Optional(Type.String({ description: 'on ok: the listing state after the write' })),
    price_sats: Type.Optional(Sats({ minimum: 1 })),
    version: Type.Optional(Type.Integer({ minimum: 1, description: 'bumped by every reprice; a checkout quote over an older version is stale' })),
    code: Type.Optional(Type.Literal('state_changed')),
    error: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const RepriceTemplate = Type.Object(
  {
    operation_id: Type.String(),
    protocol_version: Type.Literal('counterparty_attach_listing_v1'),
    listing_id: Type.String(),
    seller: Type.String(),
    asset: Type.String(),
    quantity_raw: Type.String(),
    current_price_sats: Sats({ minimum: 1 }),
    marketplace_expires_at: Type.Union([UnixSeconds, Type.Null()]),
    asset_utxo: Type.Object({ txid: Txid, vout: Vout, utxo_value_sats: Sats({ minimum: 1 }) }, { additionalProperties: false }),
    listing: Type.Object({ ...ListingTemplate.properties, expires_at: UnixSeconds }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

const Items = <T extends Record<string, any>>(props: T) =>
  Type.Array(Type.Object(props, { additionalProperties: false }), { minItems: 1, maxItems: 20, description: '1 to 20 distinct listings sold by the session address' });

const BatchBody = Type.Union(
  [
    Type.Object({ action: Type.Literal('reprice_preflight'), listings: Items({ listing_id: ListingId, price_sats: Price }) }, { additionalProperties: false }),
    Type.Object({ action: Type.Literal('reprice'), listings: Items({ listing_id: ListingId, psbt_hex: PsbtHex }) }, { additionalProperties: false }),
    Type.Object({ action: Type.Literal('delist'), listings: Items({ listing_id: ListingId }) }, { additionalProperties: false }),
  ],
  { description: 'an action and its listings: reprice_preflight {listing_id, price_sats}, reprice {listing_id, psbt_hex}, delist {listing_id}' },
);

const BatchResult = Type.Object(
  { listings: Type.Union([Type.Array(RepriceTemplate), Type.Array(Outcome)]) },
  { additionalProperties: false },
);

export function listingMaintenanceRoutes(app: App, ctx: Context, store: ListingStore): void {
  const maint = new ListingMaintenance(ctx, store);
  const own = async (req: Parameters<typeof requireSession>[0], id: string) => ownedOr404(req, await store.listing(id), (l) => l.seller, 'listing');

  app.post(
    '/v1/listings/:id/reprice',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Reprice a listing with a new signed half',
        description:
          'Body `{psbt_hex}`: the listing half for the same asset outpoint (1 input: the listed UTXO with its witnessUtxo; 1 output: the new price to the seller), signed SINGLE|ANYONECANPAY by the seller. Partial signatures and finalized P2WPKH/P2TR witnesses are both accepted and verified. The new price is read from output 0 (5,000 sats to 100 BTC). The stored half and price are overwritten in one guarded statement and `version` is bumped; if a buyer claimed the listing between verification and the write (or it ended or expired), 409 state_changed. Owner only: a missing and a foreign id give the same 404. Wrong sighash or key: 422 signature_invalid; another outpoint, output or shape, or a version, locktime or input sequence other than the listing template\'s (version 2, locktime 0, sequence 0xffffffff, as `reprice_preflight` builds it; a checkout copies them, so a non-final half could never be bought): 422 template_mismatch.',
        params: IdParams,
        body: Type.Object({ psbt_hex: PsbtHex }, { additionalProperties: false }),
        // A listing's ask is at most 100 BTC (listing_price_above_maximum above it); the spec bounds the result there too.
        response: { 200: Ok(Type.Object({ id: Type.String(), price_sats: Type.Integer({ minimum: MIN_PRICE_SATS, maximum: MAX_PRICE_SATS, description: 'the new ask, 5,000 sats to 100 BTC' }), version: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })), ...errorResponses },
      },
    },
    async (req) => ({ result: await maint.reprice(await own(req, req.params.id), req.body.psbt_hex) }),
  );

  app.post(
    '/v1/listings/:id/delist',
    {
      config: { limit: 'account_maintenance', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Delist one listing',
        description:
          'Ends an open (pending or active) or exposed listing with reason `owner`; the stored seller half is wiped in the same write and a `listing_delisted` event goes to the owner feed. The asset UTXO stays attached and can be listed again with a reuse preflight. A reserved, sold or ended listing answers 409 state_changed. Owner only: a missing and a foreign id give the same 404. Note the signed half already given to the market is destroyed, but a copy kept elsewhere stays valid on Bitcoin until the asset UTXO is spent. For an exposed listing the answer carries `exposure_warning`: its half was broadcast, so anyone can still buy at that price; only moving the unit (the rotation route) voids it.',
        params: IdParams,
        response: {
          200: Ok(Type.Object({
            id: Type.String(), state: Type.Literal('ended'), end_reason: Type.Literal('owner'),
            exposure_warning: Type.Optional(Type.String({ description: 'only for an exposed listing: delisting does not void its public half; moving the unit does' })),
          }, { additionalProperties: false })),
          ...errorResponses,
        },
      },
    },
    async (req) => ({ result: await maint.delist(await own(req, req.params.id)) }),
  );

  const rotation = new Rotation(ctx, store);
  const NewAssetUtxo = Type.Object({ txid: Txid, vout: Type.Literal(0) }, { additionalProperties: false, description: 'where the unit goes: output 0 of the rotation' });
  app.post(
    '/v1/listings/:id/rotation',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Compose the rotation of an exposed listing\'s unit',
        description:
          'For an `exposed` listing only (else 409 state_changed): its signed SINGLE|ANYONECANPAY half was broadcast in a checkout that failed, and stays valid on Bitcoin, at that price, for anyone, until the unit moves. This composes that move, reserving nothing: input 0 the listed asset UTXO, then asset-free confirmed BTC of the seller (largest first; a coin carrying a Counterparty balance or claimed by a settlement in flight is never used) → output 0 a fresh 330-sat output of the seller (Counterparty moves the attached unit to the first non-OP_RETURN output), output 1 change to the seller when above dust. Body `{fee_rate?}` (sat/vB; default the half-hour estimate). Sign every input ALL (DEFAULT on taproot) and send it to POST /v1/listings/{id}/rotation/signed. Not enough BTC: 422 insufficient_funds. Owner only: a missing and a foreign id give the same 404.',
        params: IdParams,
        body: Type.Object({ fee_rate: Type.Optional(FeeRate) }, { additionalProperties: false }),
        response: {
          200: Ok(Type.Object({
            listing_id: Type.String(),
            psbt_hex: PsbtHex,
            expected_txid: Txid,
            signer_address: Type.String(),
            inputs_to_sign: Type.Array(Type.Integer({ minimum: 0 })),
            sighash: Type.Literal('ALL'),
            fee_rate: Type.Number(),
            network_fee_sats: Sats(),
            new_asset_utxo: Type.Object({ txid: Txid, vout: Type.Literal(0), utxo_value_sats: Sats({ minimum: 1 }) }, { additionalProperties: false }),
          }, { additionalProperties: false, title: 'RotationTemplate' })),
          ...errorResponses,
        },
      },
    },
    async (req) => ({ result: await rotation.compose(await own(req, req.params.id), req.body?.fee_rate) }),
  );

  app.post(
    '/v1/listings/:id/rotation/signed',
    {
      config: { limit: 'signed_completion', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Submit the signed rotation of an exposed listing\'s unit',
        description:
          'Body `{psbt_hex}`: the rotation from POST /v1/listings/{id}/rotation, every input signed by the seller (ALL; DEFAULT or ALL on taproot; partial signatures or finalized witnesses). Verified before anything is written: input 0 the listed unit, output 0 paid to the seller, no OP_RETURN, other inputs the seller\'s and asset-free (422 template_mismatch), signatures (422 signature_invalid). The signed transaction is journaled (claiming every input) before it is relayed; the answer is `{listing_id, txid, status: broadcast, new_asset_utxo}`. When it confirms the listing ends `rotated` (owner event `listing_rotated`) and the unit at `new_asset_utxo` can be listed again with a reuse preflight. Node refusals answer as a checkout completion does (409 state_changed with `mempool_reason` when it lost to a conflicting or replacing spend, 409 conflict_spend when an input is spent in the chain or claimed by another settlement, 422 mempool_rejected, 502 broadcast_unknown: recovery relays it; sending the same bytes again is safe). The listing must still be exposed (409 state_changed).',
        params: IdParams,
        body: Type.Object({ psbt_hex: PsbtHex }, { additionalProperties: false }),
        response: {
          200: Ok(Type.Object({ listing_id: Type.String(), txid: Txid, status: Type.Literal('broadcast'), new_asset_utxo: NewAssetUtxo }, { additionalProperties: false })),
          ...errorResponses,
        },
      },
    },
    async (req) => ({ result: await rotation.submit(await own(req, req.params.id), req.body.psbt_hex) }),
  );

  app.post(
    '/v1/listings/batch',
    {
      config: { limit: 'expensive_write', cache: 'no-store' },
      schema: {
        security: sessionSecurity,
        tags,
        summary: 'Reprice or delist up to 20 listings',
        description: `1 to 20 distinct listings, all sold by the session address. Ownership of every item is checked before anything is composed or written: a missing or foreign listing refuses the whole batch with 404 not_found and \`refused_listings\` [{index, listing_id, status, code, error}] listing every refusal; nothing changes. The first refusal sets the status and code.

- \`reprice_preflight\` \`{action, listings: [{listing_id, price_sats}]}\`: fresh unsigned templates in request order, reserving nothing: \`{operation_id, protocol_version, listing_id, seller, asset, quantity_raw, current_price_sats, marketplace_expires_at, asset_utxo, listing {psbt_hex, signer_address, inputs_to_sign, sighash, price_sats, expires_at}}\` (listing.expires_at is the listing's marketplace expiry, which a reprice keeps). A listing that is not open (409 state_changed) or a price out of range (422) refuses the batch.
- \`reprice\` \`{action, listings: [{listing_id, psbt_hex}]}\`: every signed half is verified (as in POST /v1/listings/{id}/reprice) before any write; one invalid signature or template refuses the batch (422, with refused_listings). Then one guarded update per listing.
- \`delist\` \`{action, listings: [{listing_id}]}\`: no signature; the stored half is wiped in the write that ends each listing (reason owner).

\`reprice\` and \`delist\` answer \`{listings: [{index, listing_id, ok, …}]}\` in request order: on success \`ok: true\` with \`state\`, \`price_sats\` and \`version\`; a listing claimed by a buyer meanwhile (reprice) or no longer open (delist) is \`ok: false, code: state_changed\` while the others still apply.`,
        body: BatchBody,
        response: { 200: Ok(BatchResult), ...errorResponses },
      },
    },
    async (req) => {
      const me = requireSession(req);
      const b = req.body;
      if (b.action === 'reprice_preflight') return { result: { listings: await maint.batchPreflight(me, b.listings) } };
      if (b.action === 'reprice') return { result: { listings: await maint.batchReprice(me, b.listings) } };
      return { result: { listings: await maint.batchDelist(me, b.listings.map((l) => l.listing_id)) } };
    },
  );
}
