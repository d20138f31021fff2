/**
 * Wallet adapters: keys from BIP-39 mnemonics on the BIP-86/84/44 paths (the BIPs' own test
 * vectors), from a WIF; message signatures (BIP-322 simple, BIP-137) checked by the market's
 * verifier and by bip322-js; and every adapter — key, sats-connect, Unisat, Leather (the last
 * three over stand-ins of their documented APIs, real keys) — signs in and buys against the real
 * app on the devnet, P2TR and P2WPKH. Plus the client's typed refusals: a wrong network, a field
 * under another name, progress as a second argument.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Verifier } from 'bip322-js';
import { fromLeather, fromMnemonic, fromSatsConnect, fromUnisat, fromWif, MarketClient, MarketError, type FetchLike, type Wallet } from '../../client/src/index.js';
import { verifyMessage } from '../../src/bitcoin/message-signature.js';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { appFetch, noSleep } from './harness.js';
import { leatherStandIn, satsConnectStandIn, unisatStandIn, type Calls } from './wallet-standins.js';
import { routeCoverage } from './coverage.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

void describe('client wallets: keys and messages', () => {
  void it('mnemonic paths give the BIPs\' test-vector addresses (BIP-86 P2TR, BIP-84 P2WPKH, BIP-44 P2PKH)', () => {
    assert.equal(fromMnemonic(ABANDON, { type: 'p2tr' }).address, 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr');
    assert.equal(fromMnemonic(ABANDON, { type: 'p2wpkh' }).address, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    assert.equal(fromMnemonic(ABANDON, { type: 'p2pkh' }).address, '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA');
    assert.equal(fromMnemonic(ABANDON, { type: 'p2wpkh', index: 1 }).address, 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    assert.equal(fromMnemonic(ABANDON, { type: 'p2wpkh', network: 'regtest' }).path, "m/84'/1'/0'/0/0");
    assert.throws(() => fromMnemonic('abandon abandon'), (e) => e instanceof MarketError && e.code === 'invalid_request' && e.extras.field === 'mnemonic');
  });

  void it('a WIF gives the same key; the public key a collection offer needs is the x-only key', () => {
    for (const family of ['p2tr', 'p2wpkh', 'p2pkh'] as const) {
      const t = makeWallet(family, 'client-wallet-wif');
      const w = fromWif(t.wif, { type: family, network: 'regtest' });
      assert.equal(w.address, t.address);
      assert.equal(w.bidder_pubkey, Buffer.from(t.xOnly).toString('hex'));
    }
    assert.throws(() => fromWif(makeWallet('p2wpkh', 'x').wif, { network: 'mainnet' }), (e) => e instanceof MarketError && e.code === 'network_mismatch' && e.extras.field === 'wif');
  });

  void it('messages: BIP-322 simple (P2TR, P2WPKH) and BIP-137 (P2PKH, P2WPKH) verify with the market\'s verifier and bip322-js', async () => {
    for (const [family, protocol] of [['p2tr', 'bip322'], ['p2wpkh', 'bip322'], ['p2wpkh', 'bip137'], ['p2pkh', 'bip137']] as const) {
      const t = makeWallet(family, 'client-wallet-msg');
      const w = fromWif(t.wif, { type: family, network: 'regtest' });
      const sig = await w.signMessage('counterparty-marketplace sign-in', protocol);
      const r = verifyMessage({ address: t.address, message: 'counterparty-marketplace sign-in', signatureBase64: sig, network: 'regtest', method: protocol === 'bip137' ? 'BIP-137' : 'BIP-322' });
      assert.ok(r.ok, `${family} ${protocol}: ${JSON.stringify(r)}`);
      if (protocol === 'bip322' || family === 'p2pkh') assert.ok(Verifier.verifySignature(t.address, 'counterparty-marketplace sign-in', sig), `${family} ${protocol} by bip322-js`);
      assert.ok(!verifyMessage({ address: t.address, message: 'another message', signatureBase64: sig, network: 'regtest', method: protocol === 'bip137' ? 'BIP-137' : 'BIP-322' }).ok, 'bound to its message');
    }
  });
});

let m: Market;
void describe('client wallets: every adapter signs in and buys on the devnet', () => {
  before(async () => {
    m = await openMarket();
  });
  after(async () => m?.close());

  const adapters: Array<[string, (t: TestWallet, calls: Calls) => Promise<Wallet>]> = [
    ['key (WIF)', async (t, calls) => {
      const w = fromWif(t.wif, { type: t.family, network: 'regtest' });
      return { ...w, signPsbt: async (...a: Parameters<Wallet['signPsbt']>) => (calls.sign++, w.signPsbt(...a)) };
    }],
    ['sats-connect', (t, calls) => fromSatsConnect(satsConnectStandIn(t, calls), { network: 'regtest' })],
    ['Unisat', (t, calls) => fromUnisat(unisatStandIn(t, calls), { network: 'regtest' })],
    ['Leather', (t, calls) => fromLeather(leatherStandIn(t, calls), { network: 'regtest', type: t.family === 'p2tr' ? 'p2tr' : 'p2wpkh' })],
  ];

  for (const [name, make] of adapters) {
    for (const family of ['p2tr', 'p2wpkh'] as const) {
      void it(`${name}, ${family}: signs in (BIP-322), buys (signed ALL) and lists (signed SINGLE|ANYONECANPAY)`, async () => {
        const seller = await newSeller(m, 'p2wpkh', `wallet-${name}-${family}`);
        const listing = await listUnit(m, seller, 21_000);
        const t = makeWallet(family, `client-wallet-${name}`);
        await m.fund(t, 100_000);
        await m.sync();
        const calls = { sign: 0 };
        const wallet = await make(t, calls);
        assert.equal(wallet.address, t.address);
        assert.equal(wallet.bidder_pubkey, Buffer.from(t.xOnly).toString('hex'));
        const c = new MarketClient({ baseUrl: 'http://market.test', fetch: appFetch(m), network: 'regtest', ...noSleep });
        await c.signIn(wallet);
        const op = await c.buy({ lines: [{ listing_id: listing.id, max_price_sats: 21_000 }], delivery_mode: 'detached', maxSpendSats: 40_000 });
        assert.equal(op.status, 'broadcast', JSON.stringify(op));
        assert.equal(calls.sign, 1, 'one signature');
        // And lists a unit of its own: the half signed SINGLE|ANYONECANPAY, as the wallet was asked.
        const asset = await m.issue(t, '1');
        const unit = await m.attachDirect(t, asset, '1');
        await m.sync();
        const listed = await c.list({ asset_utxo: unit, asset, price_sats: 22_000, expires_at: Math.floor(m.clock.now() / 1000) + 86_400, idempotency_key: `wallet-${name.replace(/\W/g, '')}-${family}` });
        assert.equal(listed.state, 'active', JSON.stringify(listed));
        assert.equal(calls.sign, 2);
      });
    }
  }

  void it('refusals are typed: a market on another network, an address of another network, a field under another name, progress as a second argument', async () => {
    const t = makeWallet('p2wpkh', 'client-wallet-refusals');
    const regtestWallet = fromWif(t.wif, { type: 'p2wpkh', network: 'regtest' });
    // The market says regtest in GET /v1/meta; a mainnet client refuses it before anything else.
    // The served /v1/meta with its network replaced (the reply still matches its schema).
    const withMeta = (network: string): FetchLike => async (url, init) => {
      const r = await appFetch(m)(url, init);
      if (new URL(url).pathname !== '/v1/meta') return r;
      const body = JSON.parse(await r.text()) as { result: Record<string, unknown> };
      body.result.network = network;
      return { status: r.status, headers: r.headers, text: async () => JSON.stringify(body) };
    };
    const mainnet = new MarketClient({ baseUrl: 'http://market.test', fetch: withMeta('regtest'), network: 'mainnet', ...noSleep });
    await assert.rejects(mainnet.signIn(fromMnemonic(ABANDON, { type: 'p2wpkh' })), (e) => e instanceof MarketError && e.code === 'network_mismatch' && e.extras.field === 'network');
    // Without /v1/meta (a server older than the route), a mainnet client with a regtest wallet: typed, not base58.
    const noMeta: FetchLike = async (url, init) =>
      new URL(url).pathname === '/v1/meta' ? { status: 404, headers: { get: () => 'application/json' }, text: async () => JSON.stringify({ error: 'not found', code: 'not_found' }) } : appFetch(m)(url, init);
    const old = new MarketClient({ baseUrl: 'http://market.test', fetch: noMeta, network: 'mainnet', ...noSleep });
    await assert.rejects(old.signIn(regtestWallet), (e) => e instanceof MarketError && e.code === 'network_mismatch' && e.extras.field === 'address');
    // No network given: the market's (from /v1/meta) is taken.
    const taken = new MarketClient({ baseUrl: 'http://market.test', fetch: withMeta('regtest'), ...noSleep });
    assert.equal(await taken.ready(), 'regtest');
    assert.equal((await taken.meta())?.api_version, '1.0.0');

    const c = new MarketClient({ baseUrl: 'http://market.test', fetch: appFetch(m), network: 'regtest', ...noSleep });
    await m.fund(t, 50_000);
    await c.signIn(regtestWallet);
    const buy = { lines: [{ listing_id: 'lst_x', max_price_sats: 1 }], delivery_mode: 'detached' as const, maxSpendSats: 1 };
    await assert.rejects(c.buy({ ...buy, delivery_address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' }), (e) => e instanceof MarketError && e.code === 'network_mismatch' && e.extras.field === 'delivery_address');
    await assert.rejects(c.buy({ ...buy, delivery: { mode: 'detached', address: t.address } } as never), (e) => e instanceof MarketError && e.code === 'invalid_request' && e.extras.field === 'delivery' && /delivery_mode/.test(e.message));
    await assert.rejects(c.buy({ ...buy, lines: [{ listing_id: 'lst_x', max_price: 1 }] } as never), (e) => e instanceof MarketError && e.code === 'invalid_request' && e.extras.field === 'lines[0].max_price');
    await assert.rejects(c.list({ unit: { txid: 'ab'.repeat(32), vout: 0 }, asset: 'A1', price_sats: 9_000, expires_at: 1, idempotency_key: 'k' } as never), (e) => e instanceof MarketError && e.code === 'invalid_request' && e.extras.field === 'unit' && /asset_utxo/.test(e.message));
    await assert.rejects(c.acceptExact({ authorization_id: 'x', outpoint: { txid: 'ab'.repeat(32), vout: 0 }, price_sats: 1 } as never), (e) => e instanceof MarketError && e.extras.field === 'outpoint' && /target_outpoint/.test(e.message));
    await assert.rejects((c.buy as (...a: unknown[]) => Promise<unknown>)(buy, () => undefined), (e) => e instanceof MarketError && e.code === 'invalid_request' && e.extras.field === 'progress');
  });
});

routeCoverage(import.meta.url);
