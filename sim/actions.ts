/**
 * The workload: what a trader may do next, weighted like a busy market (reads and buys most,
 * listings next, bids and their accepts, the unhappy paths a real crowd produces: stale quotes,
 * double submits, a bidder spending its slot after authorizing, malformed requests). Each action
 * is one bot step through the client; its outcome, a success or the MarketError code it met, is
 * what the history records. An action never signs the same thing twice: on an uncertain outcome
 * it lets the client read the saved operation, as the contract says.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { MarketError } from '../client/src/index.js';
import { networkParams } from '../src/bitcoin/networks.js';
import { walletInput, signInput } from '../test/helpers/wallets.js';
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import type { Rng } from './rng.js';
import type { Trader } from './traders.js';
import type { World } from './world.js';

export interface SimState {
  world: World;
  traders: Trader[];
  collections: string[];
  /** Every asset of the run, by collection. */
  assets: Map<string, string[]>;
}

type Action = (s: SimState, t: Trader, rng: Rng) => Promise<string>;

const now = () => Math.floor(Date.now() / 1000);
const DAY = 86_400;

/** The listings on the public book of a collection (every level, the shown rows). */
async function bookListings(t: Trader, slug: string) {
  const book = (await t.client.http.call('GET /v1/collections/{slug}/book', { params: { slug } })).result;
  return book.asks.flatMap((level) => level.listings);
}

/** Counterparty balances held at the trader's address (not attached), from the node's API. */
async function addressBalances(s: SimState, address: string): Promise<Array<{ asset: string; quantity: number }>> {
  const r = await fetch(`${s.world.devnet.apiUrl}/v2/addresses/${address}/balances?limit=100`);
  const j = (await r.json()) as { result?: Array<{ asset: string; quantity: number; utxo?: string | null }> };
  return (j.result ?? []).filter((b) => !b.utxo && b.asset !== 'XCP' && b.quantity > 0);
}

const skip = (why: string) => `skip:${why}`;

/** A quote for one foreign ask of a drawn collection, signed by the trader; undefined on an empty book. */
async function signedQuote(s: SimState, t: Trader, rng: Rng) {
  const asks = (await bookListings(t, rng.pick(s.collections))).filter((l) => l.seller !== t.address);
  if (!asks.length) return undefined;
  const l = rng.pick(asks);
  const q = (await t.client.http.call('POST /v1/checkout/quotes', { body: { lines: [{ listing_id: l.id }], delivery_address: t.address } })).result;
  const signed = await t.signer.signPsbt(q.psbt_hex!, q.inputs_to_sign, 'ALL');
  const complete = () => t.client.http.call('POST /v1/checkout/quotes/{id}/complete', { params: { id: q.id }, body: { psbt_hex: signed }, idempotent: true });
  return { q, complete };
}

export const ACTIONS: Record<string, { weight: number; run: Action }> = {
  /** Attach one unit held at the address and list it, in one signed submission. */
  list: {
    weight: 14,
    run: async (s, t, rng) => {
      const held = await addressBalances(s, t.address);
      if (!held.length) return skip('nothing_held');
      const b = rng.pick(held);
      const price = rng.int(6, 300) * 1_000;
      const draft = await t.client.attachAndList({ asset: b.asset, quantity_raw: '1', price_sats: price, expires_at: now() + DAY, idempotency_key: `sim-${t.id}-${rng.int(0, 1e9)}`, wait: false });
      return `draft:${draft.id}`;
    },
  },

  /** Buy one to three of the cheapest asks of a collection, not the trader's own. */
  buy: {
    weight: 20,
    run: async (s, t, rng) => {
      const slug = rng.pick(s.collections);
      const asks = (await bookListings(t, slug)).filter((l) => l.seller !== t.address);
      if (!asks.length) return skip('empty_book');
      const n = Math.min(asks.length, rng.int(1, 3));
      const lines = asks.slice(0, n).map((l) => ({ listing_id: l.id, max_price_sats: l.price_sats }));
      const total = lines.reduce((a, l) => a + l.max_price_sats, 0);
      const op = await t.client.buy({ lines, delivery_mode: 'detached', delivery_address: t.address, maxSpendSats: Math.ceil(total * 1.05) + 60_000 });
      t.bought.add(op.id);
      return `bought:${op.status}:${n}`;
    },
  },

  /** A quote signed, then completed seconds later: someone may have bought it meanwhile. */
  stale_buy: {
    weight: 5,
    run: async (s, t, rng) => {
      const quoted = await signedQuote(s, t, rng);
      if (!quoted) return skip('empty_book');
      await new Promise((r) => setTimeout(r, rng.delay(500, 8_000)));
      return `completed:${(await quoted.complete()).result.status}`;
    },
  },

  /** The same signed checkout sent twice at once (often to two instances): one settlement, one answer. */
  double_submit: {
    weight: 4,
    run: async (s, t, rng) => {
      const quoted = await signedQuote(s, t, rng);
      if (!quoted) return skip('empty_book');
      const send = () => quoted.complete().then((r) => r.result, (e: unknown) => e);
      const [a, b] = await Promise.all([send(), send()]);
      const txids = [a, b].map((x) => (x instanceof Error ? undefined : (x as { txid?: string }).txid)).filter(Boolean);
      if (new Set(txids).size > 1) throw new Error(`one signed checkout answered two txids: ${txids.join(', ')}`);
      return `double:${[a, b].map((x) => (x instanceof MarketError ? x.code : x instanceof Error ? 'error' : 'ok')).join('+')}`;
    },
  },

  /** Reprice one of the trader's own public listings. */
  reprice: {
    weight: 6,
    run: async (s, t, rng) => {
      const mine = (await bookListings(t, rng.pick(s.collections))).filter((l) => l.seller === t.address);
      if (!mine.length) return skip('no_listing');
      const l = rng.pick(mine);
      await t.client.reprice({ listing_id: l.id, asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout }, price_sats: rng.int(6, 300) * 1_000 });
      return 'repriced';
    },
  },

  /** Delist one of the trader's own public listings. */
  delist: {
    weight: 3,
    run: async (s, t, rng) => {
      const mine = (await bookListings(t, rng.pick(s.collections))).filter((l) => l.seller === t.address);
      if (!mine.length) return skip('no_listing');
      await t.client.http.call('POST /v1/listings/{id}/delist', { params: { id: rng.pick(mine).id } });
      return 'delisted';
    },
  },

  /** Fund one or two exact-price slots and bid with them on an asset of a collection. */
  bid: {
    weight: 8,
    run: async (s, t, rng) => {
      const slug = rng.pick(s.collections);
      const asset = rng.pick(s.assets.get(slug)!);
      const scope = rng.chance(0.7) ? { scope: 'asset' as const, asset } : { scope: 'collection' as const, collection: slug };
      const placed = await t.client.placeBids({ price_sats: rng.int(6, 200) * 1_000, slots: rng.int(1, 2), targets: [scope], expires_at: now() + DAY, maxFeeSats: 20_000 });
      return `placed:${placed.offer_count}`;
    },
  },

  /** A bidder authorizes one of its open offers over a listed unit it matches. */
  authorize: {
    weight: 8,
    run: async (s, t, rng) => {
      const offers = (await t.client.http.call('GET /v1/address/{address}/offers', { params: { address: t.address }, query: { status: 'active' } })).result;
      if (!offers.length) return skip('no_offer');
      const o = rng.pick(offers);
      const slugs = o.collection ? [o.collection] : s.collections;
      const units = (await Promise.all(slugs.map((slug) => bookListings(t, slug)))).flat()
        .filter((l) => l.seller !== t.address && (!o.asset || l.asset === o.asset));
      if (!units.length) return skip('no_unit');
      const u = rng.pick(units);
      const a = await t.client.authorizeExact({
        offer_id: o.id, slot: { txid: o.bid_txid, vout: o.bid_vout }, price_sats: o.price_sats,
        delivery_mode: 'detached', delivery_address: t.address, target_outpoint: { txid: u.utxo_txid, vout: u.utxo_vout }, maxFeeSats: 20_000,
      });
      return `authorized:${a.authorization_id}`;
    },
  },

  /** A seller accepts one authorization from its inbox (the bid's CPFP child when needed). */
  accept: {
    weight: 8,
    run: async (_s, t, rng) => {
      const inbox = (await t.client.http.call('GET /v1/address/{address}/exact-offers', { params: { address: t.address } })).result;
      if (!inbox.length) return skip('empty_inbox');
      const a = rng.pick(inbox);
      const done = await t.client.acceptExact({ authorization_id: a.authorization_id, target_outpoint: a.target_outpoint, price_sats: a.price_sats });
      return `accepted:${done.txid}`;
    },
  },

  /** A bidder backs out by spending one of its funded slots to itself, straight to the node. */
  spend_slot: {
    weight: 2,
    run: async (s, t, rng) => {
      const offers = (await t.client.http.call('GET /v1/address/{address}/offers', { params: { address: t.address }, query: { status: 'active' } })).result;
      if (!offers.length) return skip('no_offer');
      const o = rng.pick(offers);
      // The funding may be gone from the node (a dropped mempool, a reorg): nothing to spend then.
      const prev = (await s.world.rpc('getrawtransaction', [o.bid_txid, false]).catch(() => null)) as string | null;
      if (!prev) return skip('funding_unknown_to_node');
      const prevTx = Transaction.fromRaw(hex.decode(prev), READ_TX_OPTS);
      const amount = prevTx.getOutput(o.bid_vout).amount!;
      const tx = new Transaction({ allowUnknownOutputs: true });
      tx.addInput(walletInput(t.wallet, { txid: o.bid_txid, index: o.bid_vout, amount, prevTx: hex.decode(prev) }));
      tx.addOutputAddress(t.address, amount - 1_000n, networkParams('regtest'));
      signInput(tx, 0, t.wallet, 1);
      tx.finalize();
      try {
        await s.world.rpc('sendrawtransaction', [tx.hex]);
        return 'slot_spent';
      } catch (e) {
        return skip(`node_refused:${(e as Error).message.slice(0, 60)}`);
      }
    },
  },

  /** A read of the public market: book, events, analytics. */
  browse: {
    weight: 10,
    run: async (s, t, rng) => {
      const slug = rng.pick(s.collections);
      await t.client.http.call('GET /v1/collections/{slug}/book', { params: { slug } });
      await t.client.http.call('GET /v1/events', { query: { kind: rng.pick(['sales', 'listings', 'offers'] as const), limit: 20 } });
      return 'browsed';
    },
  },

  /** A client's mistakes: every one must be a 4xx in the envelope, never a 5xx. */
  mistake: {
    weight: 3,
    run: async (s, t, rng) => {
      const bad: Array<() => Promise<unknown>> = [
        () => t.client.http.call('POST /v1/checkout/quotes', { body: { lines: [{ listing_id: 'lst_000000000000000000000000' }], delivery_address: t.address } }),
        () => t.client.http.call('POST /v1/checkout/quotes', { body: { lines: [], delivery_address: 'not-an-address' } as never }),
        () => t.client.http.call('GET /v1/collections/{slug}/book', { params: { slug: 'no-such-collection' } }),
        () => t.client.http.call('POST /v1/listings/{id}/delist', { params: { id: 'lst_000000000000000000000000' } }),
        () => t.client.http.call('POST /v1/offer-funding', { body: { price_sats: 1, slots: 0 } as never }),
      ];
      try {
        await rng.pick(bad)();
        return 'accepted?';
      } catch (e) {
        if (e instanceof MarketError && e.status !== null && e.status >= 400 && e.status < 500) return `refused:${e.code}`;
        throw e;
      }
    },
  },
};

export const WEIGHTS = Object.fromEntries(Object.entries(ACTIONS).map(([k, v]) => [k, v.weight])) as Record<string, number>;
