/** Co-signed listings for the tests (real keys, devnet): the draft, attach-and-list, the seller's leaf half. */
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { signPsbt, type Market } from './market.js';
import { signInput, type TestWallet } from './wallets.js';
import { listingRow } from './checkout.js';

export const psbtOf = (h: string) => Transaction.fromPSBT(hex.decode(h), READ_TX_OPTS);

let keys = 0;

/** The seller's half: SINGLE|ANYONECANPAY over the leaf, as a wallet signs the template (no key path offered). */
export function signLeafHalf(psbtHex: string, w: TestWallet): string {
  const tx = psbtOf(psbtHex);
  signInput(tx, 0, w, SigHash.SINGLE_ANYONECANPAY);
  return hex.encode(tx.toPSBT());
}

export async function cosignedDraft(m: Market, w: TestWallet, token: string, asset: string, price: number) {
  const r = await m.call('POST', '/v1/listing-preflights', token, {
    seller: w.address, asset, quantity_raw: '1', price_sats: price, protocol_subtype: 'cosigned',
    seller_tap_internal_key: hex.encode(w.xOnly), idempotency_key: `cosigned-${process.pid}-${++keys}`,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result as Record<string, any>;
}

/** attach-and-list with every attach input signed ALL and the given listing half. */
export const attachAndList = (m: Market, d: Record<string, any>, w: TestWallet, token: string, listingHex: string) =>
  m.call('POST', `/v1/listing-preflights/${d.id}/attach-and-list`, token, {
    attach_psbt_hex: signPsbt(d.attach.psbt_hex, w, (d.attach.signers as { inputs_to_sign: number[] }[]).flatMap((s) => s.inputs_to_sign), SigHash.ALL),
    listing_psbt_hex: listingHex,
    expires_at: Math.floor(m.clock.now() / 1000) + 86_400,
  });

/** A co-signed listing through attach-and-list, mined and active. */
export async function listCosigned(m: Market, w: TestWallet, token: string, asset: string, price: number) {
  const d = await cosignedDraft(m, w, token, asset, price);
  const r = await attachAndList(m, d, w, token, signLeafHalf(d.listing.psbt_hex, w));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await m.mine();
  await m.sync();
  const l = await listingRow(m, r.body.result.listing_id as string);
  assert.equal(l.state, 'active');
  return { d, l };
}
