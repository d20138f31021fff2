import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Context } from '../../context.js';
import { Ok, errorResponses } from '../../http/envelope.js';
import { ApiError } from '../../http/errors.js';
import { Nullable, UnixSeconds } from '../../http/validators.js';
import { SignerUnavailable } from '../../signer/port.js';
import { REFUSAL_CODES } from '../../signer/keys.js';

const Key = Type.Object({
  version: Type.Integer({ minimum: 1 }),
  pubkey: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'x-only public key (BIP-340)' }),
  created_at: UnixSeconds,
  retired_at: Nullable(UnixSeconds),
});

const SignerInfo = Type.Object({
  protocol_version: Type.Literal('funded_policy_offer_v1'),
  current: Key,
  keys: Type.Array(Key, { description: 'every key version, retired ones included (a retired key never signs again; keep it to check old receipts)' }),
  refusal_codes: Type.Array(Type.Union(REFUSAL_CODES.map((c) => Type.Literal(c))), { description: 'the `refusal_code` values of 422 policy_offer_refused' }),
});

export function signerRoutes(app: App, ctx: Context): void {
  app.get(
    '/v1/market-signer',
    {
      config: { cache: { public: 30, market: false }, limit: 'uncached_read' },
      schema: {
        tags: ['policy offers'],
        summary: "The market signer's public keys and refusal codes",
        description:
          "Public. The key the market signer co-signs collection-offer acceptances with (`current`), every earlier version (a retired key never signs again), and the published `refusal_code` values it answers 422 policy_offer_refused with: alternative_cancelled (the bidder's soft cancel of that alternative, parent txid + offer id, was recorded first; the signer never co-signs it, its siblings stay acceptable), parent_cancelled (a whole-parent cancel recorded before cancels named one alternative; the signer never co-signs that parent), already_signed_other (a parent is co-signed for one child only), key_retired, key_unknown, leaf_without_market_key, bad_request; for co-signed units (the same key signs the market's half of a checkout of a co-signed listing, or of an exact-offer or collection-offer accept of the unit, one decision per unit outpoint): listing_delisted (the seller's delist of that listing was recorded first) and listing_signed_other (the outpoint was co-signed into another settlement, `signed_txid`, still live). Soft-cancel receipts are BIP-340 signatures by one of these keys over sha256 of `counterparty-marketplace policy-offer cancel receipt\\n<parent_txid>\\n<offer_id>\\n<recorded_at>` (a whole-parent cancel recorded before: `...receipt\\n<parent_txid>\\n<recorded_at>`). 503 service_unavailable while the signer cannot be reached.",
        response: { 200: Ok(SignerInfo), ...errorResponses },
      },
    },
    async () => {
      try {
        const info = await ctx.signer.info();
        return { result: { protocol_version: 'funded_policy_offer_v1' as const, ...info, refusal_codes: [...REFUSAL_CODES] } };
      } catch (e) {
        if (e instanceof SignerUnavailable) throw new ApiError('service_unavailable', 'the market signer is unavailable; collection-offer signing is down', { retryable: true });
        throw e;
      }
    },
  );
}
