/**
 * The pieces every crash test shares: JSON calls and polling, a Bitcoin RPC proxy that can hold
 * or refuse broadcasts, and a rig of real processes (the standalone devnet on its own store, the
 * market `serve` over CHAIN=bitcoin-core through the proxy) with the devnet's RPC and control
 * routes, coins, sign-in and a listed unit. A market started with `crashAt` dies by SIGKILL at
 * that failpoint (src/failpoint.ts); `restart` brings it back on the same store.
 */
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { childStore, startDevnet, startMarket, type Child } from './processes.js';
import { rpcProxy } from '../../sim/rpc-proxy.js';

export { rpcProxy };
import { makeWallet, signMessageBip322, type TestWallet } from './wallets.js';
import { buildTx, type Coin } from './devnet.js';
import { signPsbt } from './market.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import type { FailpointName } from '../../src/failpoint.js';
import { openStore, type Db } from '../../src/store/db.js';

export type Json = Record<string, any>;

export async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { 'x-session-token': token } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Json) : {} };
}

export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export type Market = Child;

/** The devnet, the proxy and a market's store (on the backend under test, or `on`); `close` ends every process and store it made. */
export async function crashRig(name: string, on?: 'sqlite' | 'postgres') {
  const children: Child[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const devnetStore = childStore(`${name}dn`, on);
  const marketStore = childStore(`${name}mk`, on);
  cleanups.push(devnetStore.cleanup, marketStore.cleanup);
  const devnet = await startDevnet(devnetStore.env);
  children.push(devnet);
  const proxy = await rpcProxy(devnet.rpcUrl);
  cleanups.push(proxy.close);
  const marketEnv = { MARKET_FEE_ADDRESS: makeWallet('p2wpkh', `${name}-fee`).address };

  const rpc = async (method: string, params: unknown[] = []) => {
    const r = await call(devnet.url, 'POST', '/devnet/rpc', { jsonrpc: '1.0', id: 1, method, params });
    assert.equal(r.body.error ?? null, null, `${method}: ${JSON.stringify(r.body.error)}`);
    return r.body.result as unknown;
  };
  const control = (path: string, body: unknown) => call(devnet.url, 'POST', `/devnet/${path}`, body);
  const mine = async (blocks = 1) => assert.equal((await control('mine', { blocks })).status, 200);
  const mempool = async () => (await rpc('getrawmempool')) as string[];
  const coin = async (w: TestWallet, sats: number): Promise<Coin> => {
    const f = await control('faucet', { address: w.address, amount_sats: sats });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    const { txid, vout } = f.body.result as { txid: string; vout: number };
    const prevTx = hex.decode((await rpc('getrawtransaction', [txid, false])) as string);
    return { txid, vout, amount: Transaction.fromRaw(prevTx, READ_TX_OPTS).getOutput(vout).amount!, prevTx };
  };

  /** A market process on the rig's store, armed at `crashAt` when given; `env` adds config (several instances share the store). */
  const market = async (crashAt?: FailpointName, env: Record<string, string> = {}): Promise<Market> => {
    const m = await startMarket(marketStore.env, { rpcUrl: proxy.url, apiUrl: devnet.apiUrl }, { ...marketEnv, ...env, ...(crashAt ? { CRASH_AT: crashAt } : {}) });
    children.push(m);
    return m;
  };
  /** Waits for a market armed at a failpoint to die there (SIGKILL from itself). */
  const died = async (m: Market, what: string, timeoutMs = 30_000) => {
    await until(`the market to die ${what}`, async () => (m.proc.exitCode !== null || m.proc.signalCode !== null ? true : undefined), timeoutMs);
    assert.equal(m.proc.signalCode, 'SIGKILL', `the market died at its failpoint (${what}), not otherwise:\n${m.output()}`);
  };
  /** Runs `fn` on the market's store from here (a market must have migrated it first). */
  const withMarketDb = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    const store = await openStore(marketStore.env.DATABASE_URL!, { schema: marketStore.env.DATABASE_SCHEMA, poolSize: 1 });
    try {
      return await fn(store.db);
    } finally {
      await store.close();
    }
  };

  const signIn = async (m: Market, w: TestWallet) => {
    const c = await call(m.url, 'POST', '/v1/auth/challenge', { address: w.address });
    const v = await call(m.url, 'POST', '/v1/auth/verify', { address: w.address, issued_at: c.body.result.issued_at, signature: signMessageBip322(w, c.body.result.message as string) });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    return v.body.result.token as string;
  };

  /** A unit issued to `seller`, attached to a 330-sat output outside the market, confirmed. */
  const attachedUnit = async (seller: TestWallet) => {
    const issued = await control('assets', { issuer: seller.address, quantity_raw: '1', divisible: false });
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    const asset = issued.body.result.asset as string;
    const pay = await coin(seller, 30_000);
    const attach = buildTx([{ wallet: seller, coin: pay }], (input0) => [
      { script: seller.script, amount: 330n },
      { script: attachOutputScript({ input0Txid: input0, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
      { script: seller.script, amount: pay.amount - 330n - 2_000n },
    ]);
    const txid = (await rpc('sendrawtransaction', [attach])) as string;
    await mine();
    return { asset, outpoint: { txid, vout: 0 } };
  };

  /** That unit listed in `reuse` mode at `price` sats; the listing id and asset. */
  const listedUnit = async (m: Market, seller: TestWallet, price: number) => {
    const unit = await attachedUnit(seller);
    const token = await signIn(m, seller);
    const pf = await until('the reuse preflight', async () => {
      const r = await call(m.url, 'POST', '/v1/listing-preflights', {
        seller: seller.address, asset: unit.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: unit.outpoint, price_sats: price, idempotency_key: `${unit.asset}-1`,
      }, token);
      return r.status === 200 ? r.body.result as Json : undefined;
    });
    const listed = await call(m.url, 'POST', `/v1/listing-preflights/${pf.id}/listing`, {
      psbt_hex: signPsbt(pf.listing.psbt_hex as string, seller, [0], SigHash.SINGLE_ANYONECANPAY),
      expires_at: Math.floor(Date.now() / 1000) + 86_400,
    }, token);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return { listingId: listed.body.result.id as string, asset: unit.asset };
  };

  /** A funded buyer's quote for one listing, signed; the buyer's session token. */
  const signedQuote = async (m: Market, listingId: string, buyer: TestWallet, delivery: TestWallet, funded = true) => {
    if (funded) await coin(buyer, 100_000);
    const token = await signIn(m, buyer);
    const q = await until('a quote', async () => {
      const r = await call(m.url, 'POST', '/v1/checkout/quotes', { lines: [{ listing_id: listingId }], delivery_address: delivery.address }, token);
      return r.status === 200 ? r.body.result as Json : undefined;
    });
    return { q, token, signed: signPsbt(q.psbt_hex as string, buyer, q.inputs_to_sign as number[], SigHash.ALL) };
  };

  /** A unit of `${tag}-seller` listed at `price` and `${tag}-buyer`'s signed quote for it, delivered to `${tag}-delivery`. */
  const signedSale = async (m: Market, tag: string, price: number) => {
    const { listingId } = await listedUnit(m, makeWallet('p2wpkh', `${tag}-seller`), price);
    const buyer = makeWallet('p2wpkh', `${tag}-buyer`);
    const delivery = makeWallet('p2wpkh', `${tag}-delivery`);
    return { listingId, buyer, delivery, ...(await signedQuote(m, listingId, buyer, delivery)) };
  };

  /** The quote's status once `want` holds of it. */
  const quoteWhen = (m: Market, id: string, token: string, what: string, want: (r: Json) => boolean, timeoutMs?: number) =>
    until(what, async () => {
      const r = await call(m.url, 'GET', `/v1/checkout/quotes/${id}`, undefined, token);
      return r.status === 200 && want(r.body.result as Json) ? r.body.result as Json : undefined;
    }, timeoutMs);

  /** The sale events the market recorded for a txid (one sale is one event, never two). The feed is
   * cached: each read asks another page size, so another cache key. */
  let reads = 0;
  const salesOf = async (m: Market, txid: string) =>
    ((await call(m.url, 'GET', `/v1/events?kind=sales&limit=${100 - (reads++ % 50)}`)).body.result as Json[]).filter((e) => e.txid === txid);

  return {
    devnet,
    proxy, rpc, control, mine, mempool, coin, market, died, withMarketDb, signIn, attachedUnit, listedUnit, signedQuote, signedSale, quoteWhen, salesOf,
    close: async () => {
      for (const c of children) await c.kill();
      for (const f of cleanups.reverse()) await f();
    },
  };
}

export type CrashRig = Awaited<ReturnType<typeof crashRig>>;
