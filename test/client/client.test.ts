/**
 * The client library against the real app on the devnet (real keys): errors keyed on code with
 * extras, invalid_response for a non-envelope, retries only where the contract allows (reads on
 * 503 with Retry-After honoured; a plain write once), a fresh session on 401, paging, and
 * verify-before-sign: a server that swaps the delivery, inflates what the buyer pays, or adds an
 * input is refused before the wallet is asked to sign.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Transaction } from '@scure/btc-signer';
import { MarketClient, MarketError, Transport, type FetchLike } from '../../client/src/index.js';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, newBuyer, quoteOk, signQuote } from '../helpers/checkout.js';
import { makeWallet } from '../helpers/wallets.js';
import { appFetch as harnessFetch, editPsbtHex, tampering as harnessTampering, noSleep, wallet as harnessWallet } from './harness.js';
import { routeCoverage } from './coverage.js';

let m: Market;
void describe('client: transport, buy, bots, tail', () => {
  before(async () => {
    m = await openMarket();
  });
  after(async () => m?.close());

  const appFetch = () => harnessFetch(m);
  const wallet = harnessWallet;

  describe('client: errors and retries', () => {
    void it('a failure is a MarketError keyed on code with its extras; a non-envelope is invalid_response', async () => {
      const t = new Transport({ baseUrl: 'http://market.test', fetch: appFetch(), ...noSleep });
      await assert.rejects(t.request('GET', '/v1/listings/lst_missing'), (e) => e instanceof MarketError && e.code === 'not_found' && e.status === 404);
      await assert.rejects(t.request('POST', '/v1/checkout/quotes', { body: { lines: [] } }), (e) => e instanceof MarketError && e.status === 401 && e.code === 'unauthenticated');
      const html: FetchLike = async () => ({ status: 502, headers: { get: () => null }, text: async () => '<html>bad gateway</html>' });
      await assert.rejects(new Transport({ baseUrl: 'http://x.test', fetch: html, ...noSleep }).request('GET', '/v1/collections'), (e) => e instanceof MarketError && e.code === 'invalid_response' && e.status === 502);
    });

    void it('a 2xx whose body fails its route\'s schema is invalid_response (on by default; off on request)', async () => {
      // The real reply with one field turned into the wrong type.
      const malformed: FetchLike = async (url, init) => {
        const r = await appFetch()(url, init);
        const body = JSON.parse(await r.text());
        body.result.half_hour = "fast";
        return { ...r, text: async () => JSON.stringify(body) };
      };
      const honest = await new Transport({ baseUrl: 'http://market.test', fetch: appFetch(), ...noSleep }).call('GET /v1/fee-rate', {});
      assert.equal(typeof honest.result.half_hour, 'number');
      await assert.rejects(new Transport({ baseUrl: 'http://market.test', fetch: malformed, ...noSleep }).call('GET /v1/fee-rate', {}), (e) => e instanceof MarketError && e.code === 'invalid_response' && e.status === 200 && /half_hour/.test(e.message));
      const unchecked = await new Transport({ baseUrl: 'http://market.test', fetch: malformed, validateReplies: false, ...noSleep }).call('GET /v1/fee-rate', {});
      assert.equal(unchecked.result.half_hour as unknown, 'fast');
    });

    void it('reads retry 503 with the server\'s Retry-After; a plain write is sent once; an idempotent one is retried', async () => {
      const waits: number[] = [];
      let calls = 0;
      const flaky: FetchLike = async (url, init) => {
        calls++;
        if (calls <= 2) return { status: 503, headers: { get: (n) => (n === 'retry-after' ? '2' : null) }, text: async () => JSON.stringify({ error: 'busy', code: 'service_unavailable' }) };
        return appFetch()(url, init);
      };
      const t = new Transport({ baseUrl: 'http://market.test', fetch: flaky, sleep: async (ms) => void waits.push(ms), random: () => 0.5 });
      const r = await t.request<unknown[]>('GET', '/v1/collections');
      assert.equal(r.status, 200);
      assert.equal(calls, 3);
      assert.ok(waits.every((w) => w >= 2000), JSON.stringify(waits));

      calls = 0;
      await assert.rejects(t.request('POST', '/v1/auth/challenge', { body: { address: makeWallet('p2wpkh', 'client-x').address } }), (e) => e instanceof MarketError && e.status === 503);
      assert.equal(calls, 1, 'a write the contract does not make idempotent is never repeated');
      calls = 0;
      const ok = await t.request('POST', '/v1/auth/challenge', { body: { address: makeWallet('p2wpkh', 'client-y').address }, idempotent: true });
      assert.equal(ok.status, 200);
      assert.equal(calls, 3);
    });

    void it('a 401 gets a fresh session for the same wallet once, then the call is repeated', async () => {
      const w = makeWallet('p2wpkh', 'client-401');
      const c = new MarketClient({ baseUrl: 'http://market.test', fetch: appFetch(), ...noSleep });
      await c.signIn(wallet(w, { sign: 0 }));
      (c as unknown as { token: string }).token = 'expired-token';
      const r = await c.http.request('GET', `/v1/address/${w.address}/offers`);
      assert.equal(r.status, 200);
    });
  });

  describe('client: verify before sign', () => {
    const setup = async (label: string) => {
      const seller = await newSeller(m, 'p2wpkh', `client-${label}`, 1);
      const listing = await listUnit(m, seller, 25_000);
      const buyerW = makeWallet('p2wpkh', `client-buyer-${label}`);
      await m.fund(buyerW, 200_000);
      await m.sync();
      return { listing, buyerW };
    };
    const intent = (listingId: string, address: string) => ({ lines: [{ listing_id: listingId, max_price_sats: 25_000 }], delivery_mode: 'detached' as const, delivery_address: address, maxSpendSats: 40_000 });

    /** A fetch that rewrites the quote reply. */
    const tampering = (edit: (q: Record<string, any>) => void) => harnessTampering(m, (method, path) => method === 'POST' && path === '/v1/checkout/quotes', edit);
    const editPsbt = (q: Record<string, any>, f: (tx: Transaction) => void) => {
      q.psbt_hex = editPsbtHex(q.psbt_hex, f);
    };

    for (const [label, edit] of [
      ['swaps the delivery address', (q: Record<string, any>) => (q.delivery.address = makeWallet('p2wpkh', 'thief').address)],
      ['inflates what the buyer pays', (q: Record<string, any>) => editPsbt(q, (tx) => {
        const last = tx.outputsLength - 1;
        const o = tx.getOutput(last);
        tx.updateOutput(last, { amount: o.amount! - 30_000n });
      })],
      ['adds an input', (q: Record<string, any>) => editPsbt(q, (tx) => tx.addInput({ txid: 'ab'.repeat(32), index: 7, witnessUtxo: { script: new Uint8Array([0x00, 0x14, ...new Uint8Array(20)]), amount: 1_000n } }))],
    ] as const) {
      void it(`refuses a server that ${label}, without calling the signer`, async () => {
        const { listing, buyerW } = await setup(label.split(' ')[0]!);
        const calls = { sign: 0 };
        const c = new MarketClient({ baseUrl: 'http://market.test', fetch: tampering(edit), ...noSleep });
        await c.signIn(wallet(buyerW, calls));
        await assert.rejects(c.buy(intent(listing.id, buyerW.address)), (e) => e instanceof MarketError && e.code === 'unsafe_psbt');
        assert.equal(calls.sign, 0, 'the wallet was never asked');
      });
    }

    void it('an honest server: verified, signed once, completed (its reply lost: the operation read back); the feed pages', async () => {
      const { listing, buyerW } = await setup('honest');
      const calls = { sign: 0 };
      const steps: string[] = [];
      // The completion is taken but its reply times out at an edge (504): sent once, then the saved operation is read.
      let completions = 0;
      const lossy: FetchLike = async (url, init) => {
        const r = await appFetch()(url, init);
        if (!url.endsWith('/complete')) return r;
        completions++;
        return { status: 504, headers: { get: () => null }, text: async () => JSON.stringify({ error: 'gateway timeout', code: 'upstream_unavailable' }) };
      };
      const c = new MarketClient({ baseUrl: 'http://market.test', fetch: lossy, ...noSleep });
      await c.signIn(wallet(buyerW, calls));
      const op = await c.buy({ ...intent(listing.id, buyerW.address), progress: (s) => steps.push(s) });
      assert.equal(op.status, 'broadcast', JSON.stringify(op));
      assert.equal(calls.sign, 1);
      assert.equal(completions, 1, 'never resent before the operation was read');
      assert.deepEqual(steps, ['quoted', 'verified', 'signed', 'uncertain']);
      let n = 0;
      for await (const _ of c.events({ limit: 2 })) if (++n >= 5) break;
      assert.ok(n >= 3, 'several pages of the public feed');
      // The ordered log from the start: oldest first, the sale among its entries, resumable at next_after.
      const first = await c.eventsAfter(0, { limit: 100 });
      const seqs = first.result.map((e) => e.seq);
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'ascending seq');
      assert.ok(first.result.some((e) => e.kind === 'sale' && e.txid === op.txid), 'the sale is in the log');
      assert.equal((await c.eventsAfter(first.next_after)).result.length, 0, 'nothing after the last position read');
    });
  });

  describe('client: the live tail', () => {
    void it('follows the ordered log: every new entry once, oldest first, a burst larger than a page, and a sale again when it confirms', async () => {
      const seller = await newSeller(m, 'p2wpkh', 'tail-seller', 5);
      const c = new MarketClient({ baseUrl: 'http://market.test', fetch: appFetch(), ...noSleep });
      const abort = new AbortController();
      let first: string | undefined;
      const steps = [
        async () => void (first = (await listUnit(m, seller, 21_000)).id),
        async () => {
          for (const p of [22_000, 23_000, 24_000]) await listUnit(m, seller, p);
        },
        async () => {
          const buyer = await newBuyer(m, 'p2wpkh', 'tail-buyer');
          const q = await quoteOk(m, buyer, { lines: [{ listing_id: first! }] });
          assert.equal((await complete(m, buyer, q.id, signQuote(q, buyer.w))).status, 200);
        },
        async () => {
          await m.mine();
          await m.ctx.indexer.run(); // no m.sync(): it would clear the cache, and the tail must not need that
        },
        async () => abort.abort(),
      ];
      let sleeps = 0;
      const sleep = async () => {
        sleeps++;
        await steps.shift()?.();
      };
      const got: Array<{ seq: number; event_id: string; kind: string; seller?: unknown; price_sats?: unknown; confirmed_at?: unknown }> = [];
      for await (const e of c.tail({ limit: 2, fromNow: true, sleep, signal: abort.signal })) got.push(e);
      const seqs = got.map((e) => e.seq);
      assert.deepEqual(seqs, [...new Set(seqs)].sort((x, y) => x - y), `each entry once, in log order: ${JSON.stringify(got)}`);
      const listed = got.filter((e) => e.kind === 'listed' && e.seller === seller.w.address).map((e) => e.price_sats);
      assert.deepEqual(listed, [21_000, 22_000, 23_000, 24_000], JSON.stringify(got));
      // The sale comes when broadcast, and again (same event_id, later seq) when its block is seen.
      const sales = got.filter((e) => e.kind === 'sale' && e.seller === seller.w.address);
      assert.equal(sales.length, 2, JSON.stringify(sales));
      assert.equal(sales[0]!.event_id, sales[1]!.event_id);
      assert.deepEqual([sales[0]!.confirmed_at, typeof sales[1]!.confirmed_at], [null, 'number'], 'the confirmation is reported');
      // The burst of three was read in two reads of two without a sleep between them.
      assert.equal(sleeps, 5, 'one sleep per step: a full read is followed at once');
    });
  });
});

routeCoverage(import.meta.url);

describe('User-Agent', () => {
  void it('sends a descriptive User-Agent: the integration\'s own when given, the package\'s otherwise', async () => {
    const seen: Array<string | undefined> = [];
    const fetch: FetchLike = async (_url, init) => {
      seen.push(init.headers['user-agent']);
      return { status: 200, headers: { get: () => 'application/json' }, text: async () => JSON.stringify({ result: { ok: true } }) } as never;
    };
    const named = new Transport({ baseUrl: 'http://market.test', fetch, userAgent: 'my-shop/2.1 (+https://my-shop.example)', validateReplies: false, ...noSleep });
    await named.request('GET', '/healthz');
    const plain = new Transport({ baseUrl: 'http://market.test', fetch, validateReplies: false, ...noSleep });
    await plain.request('GET', '/healthz');
    assert.deepEqual(seen, ['my-shop/2.1 (+https://my-shop.example)', 'counterparty-marketplace-client/0.1.0']);
  });
});
