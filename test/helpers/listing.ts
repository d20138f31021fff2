/**
 * Live listings through the real seller flow, for the buyer-side tests: a unit attached on the
 * devnet (mined), a reuse preflight, and the seller's SINGLE|ANYONECANPAY half signed with the
 * seller's real key. The listing is `active` at once.
 *
 *   const s = await newSeller(m, 'p2tr', 'alice', 3);
 *   const l = await listUnit(m, s, 20_000);
 */
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { signPsbt, type Market } from './market.js';
import { makeWallet, type TestWallet, type WalletFamily } from './wallets.js';

export interface Seller {
  w: TestWallet;
  token: string;
  /** The asset this seller was issued (numeric id). */
  asset: string;
}

export interface LiveListing {
  id: string;
  asset: string;
  seller: string;
  price_sats: number;
  utxo_txid: string;
  utxo_vout: number;
  expires_at: number;
}

let n = 0;

/** A funded, signed-in seller (P2WPKH or P2TR) issued `units` of a fresh asset (or credited `asset`). */
export async function newSeller(m: Market, family: 'p2wpkh' | 'p2tr', label: string, units = 1, asset?: string): Promise<Seller> {
  const w = makeWallet(family as WalletFamily, `listing-helper:${label}:${++n}`);
  await m.fund(w, 50_000);
  let a = asset;
  if (a) await m.credit(w, a, String(units));
  else a = await m.issue(w, String(units));
  return { w, asset: a, token: await m.signIn(w) };
}

/** One unit of the seller's asset, attached (mined) and listed at `price`; expires in `ttl` seconds. `utxo`: list that attached unit again instead (no block). */
export async function listUnit(m: Market, s: Seller, price: number, opts: { ttl?: number; asset?: string; utxo?: { txid: string; vout: number } } = {}): Promise<LiveListing> {
  const asset = opts.asset ?? s.asset;
  const at = opts.utxo ?? (await m.attachDirect(s.w, asset, '1'));
  const pf = await m.call('POST', '/v1/listing-preflights', s.token, {
    seller: s.w.address, asset, quantity_raw: '1', mode: 'reuse', asset_utxo: at, price_sats: price, idempotency_key: `lh-${++n}`,
  });
  assert.equal(pf.status, 200, JSON.stringify(pf.body));
  const now = Math.floor(m.clock.now() / 1000);
  const l = await m.call('POST', `/v1/listing-preflights/${pf.body.result.id}/listing`, s.token, {
    psbt_hex: signPsbt(pf.body.result.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: now + (opts.ttl ?? 86_400),
  });
  assert.equal(l.status, 200, JSON.stringify(l.body));
  assert.equal(l.body.result.state, 'active');
  return l.body.result as LiveListing;
}

let keys = 0;

/**
 * Attach mode: a listing preflight, the attach signed ALL and the listing half signed
 * SINGLE|ANYONECANPAY by the seller's own key, submitted with attach-and-list. The listing is
 * `pending` until the caller mines and syncs (then `active`).
 *
 *   const { listingId } = await listThroughSeller(m, seller, token, asset, { price: 20_000 });
 *   await m.mine(); await m.sync();
 */
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

/** A unit listed with attach-and-list, confirmed and active; its attach is in the newest block. */
export async function listAttached(m: Market, s: Seller, price: number): Promise<{ draftId: string; listingId: string }> {
  await m.fund(s.w, 100_000);
  const d = (await m.call('POST', '/v1/listing-preflights', s.token, { seller: s.w.address, asset: s.asset, quantity_raw: '1', price_sats: price, idempotency_key: `la-${++n}` })).body.result;
  const r = await m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, s.token, {
    attach_psbt_hex: signPsbt(d.attach.psbt_hex, s.w, [0], SigHash.ALL),
    listing_psbt_hex: signPsbt(d.listing.psbt_hex, s.w, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: Math.floor(m.clock.now() / 1000) + 86_400,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await m.mine();
  await m.sync();
  const done = (await m.call('GET', `/v1/listing-preflights/${d.id}`, s.token)).body.result;
  assert.equal(done.listing_status, 'active');
  return { draftId: d.id as string, listingId: done.listing_id as string };
}

