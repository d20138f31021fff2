/** Bidders, funded offers and exact authorizations for the exact-offer tests (real keys, devnet). */
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { signPsbt, type Market } from '../helpers/market.js';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';

export interface Bidder {
  w: TestWallet;
  token: string;
}

let n = 0;

export async function newBidder(m: Market, coins: number[] = [1_000_000], family: 'p2wpkh' | 'p2tr' = 'p2wpkh'): Promise<Bidder> {
  const w = makeWallet(family, `exact-bidder:${++n}`);
  for (const c of coins) await m.fund(w, c);
  return { w, token: await m.signIn(w) };
}

export function finalize(psbtHex: string): string {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  tx.finalize();
  return hex.encode(tx.extract());
}

/** Funds `slots` slots at `price` and places them over `targets`; returns the placement result. */
export async function placeFunded(m: Market, b: Bidder, price: number, slots: number, targets: unknown[], opts: { mode?: 'detached' | 'attached'; receive?: string } = {}) {
  const f = await m.call('POST', '/v1/offer-funding', b.token, { price_sats: price, slots, delivery_mode: opts.mode ?? 'detached', fee_rate: 2 });
  assert.equal(f.status, 200, JSON.stringify(f.body));
  const raw = finalize(signPsbt(f.body.result.psbt_hex, b.w, f.body.result.inputs_to_sign, SigHash.ALL));
  const r = await m.call('POST', '/v1/funded-offers', b.token, {
    funding_tx_hex: raw,
    bids: f.body.result.bids,
    targets,
    expires_at: Math.floor(m.clock.now() / 1000) + 86_400,
    ...(opts.mode ? { delivery_mode: opts.mode } : {}),
    ...(opts.receive ? { receive_address: opts.receive } : {}),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.result as { placement_id: string; funding_slots: Array<{ funding_slot_id: string; txid: string; vout: number; offer_ids: string[] }> };
}

/** Asks for an authorization of `offerId` over `outpoint`, signs input 0 with `sighash`, activates it. */
export async function authorizeOne(m: Market, b: Bidder, offerId: string, outpoint: { txid: string; vout: number }, feeRate = 3, sighash: number = SigHash.ALL) {
  const r = await m.call('POST', `/v1/offers/${offerId}/exact-authorizations`, b.token, { outpoints: [outpoint], fee_rate: feeRate });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const a = r.body.result[0];
  const signed = signPsbt(a.psbt_hex, b.w, [0], sighash);
  const act = await m.call('POST', `/v1/exact-offer-authorizations/${a.authorization_id}/bidder-psbt`, b.token, { psbt_hex: signed });
  return { a, act, signed };
}
