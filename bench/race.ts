/**
 * 200 buyers complete quotes for the same listing at the same instant, over HTTP, each signed
 * with its own key: exactly one must win, every other answer must be 409 checkout_changed, and
 * the last answer is timed. Each buyer sends from its own address (X-Forwarded-For with one
 * trusted hop), as 200 real wallets would, so the per-IP budgets do not shape the race.
 */
import { SigHash } from '@scure/btc-signer';
import type { Context } from '../src/context.js';
import type { Devnet } from '../src/chain/devnet/devnet.js';
import { attachFreshUnit } from './units.js';
import { buildTx, coinOf } from '../test/helpers/devnet.js';
import { signPsbt } from '../test/helpers/market.js';
import { makeWallet, signMessageBip322, type TestWallet } from '../test/helpers/wallets.js';

type Json = Record<string, any>;

export interface RaceResult {
  buyers: number;
  winners: number;
  conflicts: number;
  others: number;
  last_ms: number;
  first_ms: number;
}

const ipOf = (k: number) => `10.${(k >> 8) & 255}.${k & 255}.7`;

export function apiCaller(api: string) {
  return async (method: 'GET' | 'POST', path: string, opts: { body?: unknown; token?: string; ip?: string; raw?: boolean } = {}) => {
    const r = await fetch(`${api}${path}`, {
      method,
      headers: {
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(opts.token ? { 'x-session-token': opts.token } : {}),
        ...(opts.ip ? { 'x-forwarded-for': opts.ip } : {}),
      },
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    const body = (await r.json()) as Json;
    if (!opts.raw && r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(body)}`);
    return { status: r.status, body };
  };
}

/** Pays `amount` sats to each wallet in one fan-out transaction from a faucet coin, confirmed. */
export async function fanOut(devnet: Devnet, payer: TestWallet, wallets: readonly TestWallet[], amount: bigint): Promise<string> {
  // About 2 sat/vB: each output is at most 43 bytes.
  const fee = 10_000n + 100n * BigInt(wallets.length);
  const f = await devnet.faucet(payer.address, Number(amount * BigInt(wallets.length) + fee) + 100_000);
  const coin = coinOf(devnet, f.txid, f.vout);
  const raw = buildTx([{ wallet: payer, coin }], [...wallets.map((w) => ({ script: w.script, amount })), { script: payer.script, amount: coin.amount - amount * BigInt(wallets.length) - fee }]);
  const txid = await devnet.bitcoin.broadcast(raw);
  await devnet.mine(1);
  return txid;
}

export async function raceBench(ctx: Context, api: string, buyers = 200): Promise<RaceResult> {
  const devnet = ctx.devnet as unknown as Devnet;
  const call = apiCaller(api);
  const signIn = async (w: TestWallet, ip: string) => {
    const c = (await call('POST', '/v1/auth/challenge', { body: { address: w.address }, ip })).body.result as Json;
    const v = await call('POST', '/v1/auth/verify', { body: { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message as string) }, ip });
    return (v.body.result as Json).token as string;
  };

  // One unit listed by one seller.
  const seller = makeWallet('p2wpkh', 'race-seller');
  const sellerIp = ipOf(60_000);
  const sellerToken = await signIn(seller, sellerIp);
  const { asset, txid: attachTxid } = await attachFreshUnit(devnet, seller);
  const wallets = Array.from({ length: buyers }, (_, k) => makeWallet(k % 2 ? 'p2tr' : 'p2wpkh', `race-buyer-${k}`));
  await fanOut(devnet, makeWallet('p2wpkh', 'race-payer'), wallets, 200_000n);
  await ctx.sync();
  const pf = (await call('POST', '/v1/listing-preflights', {
    body: { seller: seller.address, asset, quantity_raw: '1', mode: 'reuse', asset_utxo: { txid: attachTxid, vout: 0 }, price_sats: 30_000, idempotency_key: 'race-1' },
    token: sellerToken, ip: sellerIp,
  })).body.result as Json;
  const half = signPsbt((pf.listing as Json).psbt_hex as string, seller, [0], SigHash.SINGLE_ANYONECANPAY);
  const listingId = (await call('POST', `/v1/listing-preflights/${pf.id}/listing`, { body: { psbt_hex: half, expires_at: Math.floor(Date.now() / 1000) + 86_400 }, token: sellerToken, ip: sellerIp })).body.result.id as string;
  await ctx.sync();

  // Every buyer signs in, quotes the listing and signs its quote; nobody completes yet.
  const ready: Array<{ id: string; token: string; psbt: string; ip: string }> = [];
  for (const [k, w] of wallets.entries()) {
    const ip = ipOf(k);
    const token = await signIn(w, ip);
    const q = (await call('POST', '/v1/checkout/quotes', { body: { lines: [{ listing_id: listingId }] }, token, ip })).body.result as Json;
    ready.push({ id: q.id as string, token, ip, psbt: signPsbt(q.psbt_hex as string, w, q.inputs_to_sign as number[], w.family === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL) });
  }

  const t0 = performance.now();
  const answers = await Promise.all(
    ready.map(async (c) => {
      const r = await call('POST', `/v1/checkout/quotes/${c.id}/complete`, { body: { psbt_hex: c.psbt }, token: c.token, ip: c.ip, raw: true });
      return { status: r.status, code: r.body.code as string | undefined, ms: performance.now() - t0 };
    }),
  );
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    buyers,
    winners: answers.filter((a) => a.status === 200).length,
    conflicts: answers.filter((a) => a.status === 409 && a.code === 'checkout_changed').length,
    others: answers.filter((a) => a.status !== 200 && !(a.status === 409 && a.code === 'checkout_changed')).length,
    first_ms: round(Math.min(...answers.map((a) => a.ms))),
    last_ms: round(Math.max(...answers.map((a) => a.ms))),
  };
}
