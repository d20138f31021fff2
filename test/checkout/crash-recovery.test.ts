/**
 * A crash between journal and broadcast loses nothing. Real processes: the standalone devnet,
 * and the market (`serve`, CHAIN=bitcoin-core through the production adapters) whose Bitcoin
 * RPC goes through a proxy here that can hold `sendrawtransaction`. The market journals a
 * checkout, its broadcast hangs at the proxy, the market is killed with SIGKILL; the devnet
 * never saw the bytes. The restarted market's recovery relays them and the sale completes.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { childStore, startDevnet, startMarket, type Child } from '../helpers/processes.js';
import { makeWallet, signMessageBip322, type TestWallet } from '../helpers/wallets.js';
import { buildTx, type Coin } from '../helpers/devnet.js';
import { signPsbt } from '../helpers/market.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';

type Json = Record<string, any>;

async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { 'x-session-token': token } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Json) : {} };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A JSON-RPC proxy that forwards to the devnet, and holds broadcasts unanswered while `hold` is set. */
async function rpcProxy(target: string) {
  const held: http.ServerResponse[] = [];
  const state = { hold: false, heldCalls: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const calls = ([] as Json[]).concat(JSON.parse(body || '{}') as Json);
      if (state.hold && calls.some((c) => c.method === 'sendrawtransaction' || c.method === 'submitpackage')) {
        state.heldCalls++;
        held.push(res);
        return;
      }
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' }, body })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(await r.text());
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    state,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const children: Child[] = [];
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of children) await c.kill();
  for (const f of cleanups.reverse()) await f();
});

void test('killed between journal and broadcast: the restarted market relays the journaled checkout and the sale completes', { timeout: 180_000 }, async () => {
  const devnetStore = childStore('devnet');
  const marketStore = childStore('market');
  cleanups.push(devnetStore.cleanup, marketStore.cleanup);
  const devnet = await startDevnet(devnetStore.env);
  children.push(devnet);
  const proxy = await rpcProxy(devnet.rpcUrl);
  cleanups.push(proxy.close);
  const rpc = async (method: string, params: unknown[] = []) => {
    const r = await call(devnet.rpcUrl.replace(/\/devnet\/rpc$/, ''), 'POST', '/devnet/rpc', { jsonrpc: '1.0', id: 1, method, params });
    assert.equal(r.body.error ?? null, null, `${method}: ${JSON.stringify(r.body.error)}`);
    return r.body.result as unknown;
  };
  const control = (path: string, body: unknown) => call(devnet.url, 'POST', `/devnet/${path}`, body);
  const mine = async () => assert.equal((await control('mine', { blocks: 1 })).status, 200);
  const coin = async (w: TestWallet, sats: number): Promise<Coin> => {
    const f = await control('faucet', { address: w.address, amount_sats: sats });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    const { txid, vout } = f.body.result as { txid: string; vout: number };
    const prevTx = hex.decode((await rpc('getrawtransaction', [txid, false])) as string);
    return { txid, vout, amount: Transaction.fromRaw(prevTx, READ_TX_OPTS).getOutput(vout).amount!, prevTx };
  };

  const env = { MARKET_FEE_ADDRESS: makeWallet('p2wpkh', 'crash-fee').address };
  let market = await startMarket(marketStore.env, { rpcUrl: proxy.url, apiUrl: devnet.apiUrl }, env);
  children.push(market);
  const signIn = async (w: TestWallet) => {
    const c = await call(market.url, 'POST', '/v1/auth/challenge', { address: w.address });
    const v = await call(market.url, 'POST', '/v1/auth/verify', { address: w.address, issued_at: c.body.result.issued_at, signature: signMessageBip322(w, c.body.result.message as string) });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    return v.body.result.token as string;
  };

  // The seller's unit: issued, attached to a 330-sat output outside the market, confirmed, listed (reuse).
  const seller = makeWallet('p2wpkh', 'crash-seller');
  const issued = await control('assets', { issuer: seller.address, quantity_raw: '1', divisible: false });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  const asset = issued.body.result.asset as string;
  const pay = await coin(seller, 30_000);
  const attach = buildTx([{ wallet: seller, coin: pay }], (input0) => [
    { script: seller.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: input0, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
    { script: seller.script, amount: pay.amount - 330n - 2_000n },
  ]);
  const attachTxid = (await rpc('sendrawtransaction', [attach])) as string;
  await mine();
  const sellerToken = await signIn(seller);
  const pf = await until('the reuse preflight', async () => {
    const r = await call(market.url, 'POST', '/v1/listing-preflights', {
      seller: seller.address, asset, quantity_raw: '1', mode: 'reuse', asset_utxo: { txid: attachTxid, vout: 0 }, price_sats: 25_000, idempotency_key: 'crash-1',
    }, sellerToken);
    return r.status === 200 ? r.body.result as Json : undefined;
  });
  const listed = await call(market.url, 'POST', `/v1/listing-preflights/${pf.id}/listing`, {
    psbt_hex: signPsbt(pf.listing.psbt_hex as string, seller, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: Math.floor(Date.now() / 1000) + 86_400,
  }, sellerToken);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const listingId = listed.body.result.id as string;

  // The buyer quotes and signs; delivery goes to a legacy address.
  const buyer = makeWallet('p2wpkh', 'crash-buyer');
  const delivery = makeWallet('p2pkh', 'crash-delivery');
  await coin(buyer, 100_000);
  const buyerToken = await signIn(buyer);
  const q = await until('a quote', async () => {
    const r = await call(market.url, 'POST', '/v1/checkout/quotes', { lines: [{ listing_id: listingId }], delivery_address: delivery.address }, buyerToken);
    return r.status === 200 ? r.body.result as Json : undefined;
  });
  const signed = signPsbt(q.psbt_hex as string, buyer, q.inputs_to_sign as number[], SigHash.ALL);

  // Completion journals, then its broadcast hangs at the proxy; the market dies there.
  proxy.state.hold = true;
  const pending = call(market.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, buyerToken).catch(() => undefined);
  await until('the broadcast to reach the node', async () => (proxy.state.heldCalls > 0 ? true : undefined));
  const journaled = await call(market.url, 'GET', `/v1/checkout/quotes/${q.id}`, undefined, buyerToken);
  assert.equal(journaled.body.result.status, 'broadcasting', JSON.stringify(journaled.body));
  await market.kill('SIGKILL');
  await pending;
  const mempool = (await rpc('getrawmempool')) as string[];
  assert.ok(!mempool.includes(q.expected_txid as string), 'the node never saw the checkout before the crash');
  proxy.state.hold = false;

  // Restarted on the same store: recovery relays the journaled bytes, the block confirms them.
  market = await startMarket(marketStore.env, { rpcUrl: proxy.url, apiUrl: devnet.apiUrl }, env);
  children.push(market);
  await until('recovery to relay the checkout', async () => (((await rpc('getrawmempool')) as string[]).includes(q.expected_txid as string) ? true : undefined));
  const relayed = await call(market.url, 'GET', `/v1/checkout/quotes/${q.id}`, undefined, buyerToken);
  assert.equal(relayed.body.result.status, 'broadcast', JSON.stringify(relayed.body));
  await mine();
  const done = await until('the market to see the confirmation', async () => {
    const r = await call(market.url, 'GET', `/v1/checkout/quotes/${q.id}`, undefined, buyerToken);
    return r.body.result?.status === 'confirmed' ? r.body.result as Json : undefined;
  });
  assert.equal(done.txid, q.expected_txid);

  const balances = await call(devnet.url, 'GET', `/devnet/counterparty/v2/addresses/${delivery.address}/balances`);
  assert.deepEqual(
    (balances.body.result as Json[]).filter((b) => b.asset === asset).map((b) => [b.quantity, b.utxo ?? null]),
    [[1, null]],
    'the unit was detached to the delivery address',
  );
  const fills = await call(market.url, 'GET', `/v1/fills?address=${delivery.address}&role=buyer`);
  assert.deepEqual(
    (fills.body.result as Json[]).map((f) => [f.txid, f.ref_id, f.buyer, f.price_sats, f.confirmed_at !== null]),
    [[q.expected_txid, listingId, delivery.address, 25_000, true]],
  );
  const settlements = await call(market.url, 'GET', `/v1/events?kind=sales`);
  assert.equal((settlements.body.result as Json[]).filter((e) => e.txid === q.expected_txid).length, 1, 'one sale, not two');
});
