/**
 * A real listing through the seller flow: listing preflight (mode attach), the attach signed
 * ALL and the listing half signed SINGLE|ANYONECANPAY by the seller's own key, submitted with
 * attach-and-list. The listing is `pending` until the caller mines and syncs (then `active`).
 *
 *   const { listingId } = await listThroughSeller(m, seller, token, asset, { price: 20_000 });
 *   await m.mine(); await m.sync();
 */
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import type { TestWallet } from './wallets.js';
import { signPsbt, type Market } from './market.js';

let keys = 0;

export async function listThroughSeller(
  m: Market,
  seller: TestWallet,
  token: string,
  asset: string,
  opts: { price: number; quantityRaw?: string; ttlSeconds?: number },
): Promise<{ draftId: string; listingId: string; utxo: { txid: string; vout: number } }> {
  const pre = await m.call('POST', '/v1/listing-preflights', token, {
    seller: seller.address,
    asset,
    quantity_raw: opts.quantityRaw ?? '1',
    price_sats: opts.price,
    idempotency_key: `helper-list-${++keys}-${asset}`,
  });
  assert.equal(pre.status, 200, JSON.stringify(pre.body));
  const d = pre.body.result;
  const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, {
    attach_psbt_hex: signPsbt(d.attach.psbt_hex, seller, [0], SigHash.ALL),
    listing_psbt_hex: signPsbt(d.listing.psbt_hex, seller, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: Math.floor(m.clock.now() / 1000) + (opts.ttlSeconds ?? 86_400),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const listingId = r.body.result.listing_id as string;
  assert.ok(listingId, JSON.stringify(r.body.result));
  return { draftId: d.id, listingId, utxo: { txid: d.expected_txid, vout: 0 } };
}
