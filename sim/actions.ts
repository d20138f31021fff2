/**
 * The workload: what a trader may do next, weighted like a busy market (reads and buys most,
 * listings next, bids and their accepts, the unhappy paths a real crowd produces: stale quotes,
 * double submits, a bidder spending its slot after authorizing, malformed requests). Each action
 * is one bot step through the client; its outcome, a success or the MarketError code it met, is
 * what the history records. An action never signs the same thing twice: on an uncertain outcome
 * it lets the client read the saved operation, as the contract says.
 */
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { MarketError } from '../client/src/index.js';
import { networkParams } from '../src/bitcoin/networks.js';
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import { splitOutpoint } from '../src/trade/outpoints.js';
import type { Rng } from './rng.js';
import type { Trader } from './traders.js';
import type { World } from './world.js';
import type { WebhookReceiver } from './webhook-receiver.js';
import { distinct, drawTarget, targetTakes, type CatalogEntry, type Target } from './targets.js';

export interface SimState {
  world: World;
  traders: Trader[];
  collections: string[];
  /** Every asset of the run, by collection. */
  assets: Map<string, string[]>;
  /** The run's catalogue: each asset's collection and traits. */
  catalog: CatalogEntry[];
  /** Where the traders' webhooks arrive. */
  hooks: WebhookReceiver;
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

/**
 * Units held attached (one UTXO each) at the address, from the node's API: what a buyer who took
 * attached delivery holds, or a seller whose listing ended. Not the ones it has listed, pending
 * or in flight (the market's own rows say which).
 */
async function attachedUnits(s: SimState, t: Trader): Promise<Array<{ asset: string; utxo: { txid: string; vout: number } }>> {
  const r = await fetch(`${s.world.devnet.apiUrl}/v2/addresses/${t.address}/balances?type=utxo&limit=100`);
  const rows = (((await r.json()) as { result?: Array<{ asset: string; quantity: number; utxo?: string | null }> }).result ?? []).filter((b) => b.utxo && b.asset !== 'XCP' && b.quantity > 0);
  if (!rows.length) return [];
  const listed = (await t.client.http.call('GET /v1/address/{address}/listings', { params: { address: t.address }, query: { limit: 100 } })).result;
  const busy = new Set(listed.filter((l) => !['sold', 'ended'].includes(l.state)).map((l) => `${l.asset_utxo.txid}:${l.asset_utxo.vout}`));
  return rows.filter((b) => !busy.has(b.utxo!)).map((b) => ({ asset: b.asset, utxo: splitOutpoint(b.utxo!) }));
}

/** Other traders' attached units of `assets` (anyone's, listed or not), from the node's API. */
async function othersUnits(s: SimState, t: Trader, assets: string[]): Promise<Array<{ asset: string; utxo: { txid: string; vout: number } }>> {
  const out: Array<{ asset: string; utxo: { txid: string; vout: number } }> = [];
  for (const asset of assets) {
    const r = await fetch(`${s.world.devnet.apiUrl}/v2/assets/${asset}/balances?type=utxo&limit=100`);
    const rows = ((await r.json()) as { result?: Array<{ asset: string; quantity: number; utxo?: string | null; utxo_address?: string | null }> }).result ?? [];
    for (const b of rows) if (b.utxo && b.quantity > 0 && b.utxo_address !== t.address) out.push({ asset: b.asset, utxo: splitOutpoint(b.utxo) });
  }
  return out;
}

/** The node's confirmations of an unspent output (0 in the mempool; -1 spent or unknown). */
async function confirmationsOf(s: SimState, u: { txid: string; vout: number }): Promise<number> {
  const out = (await s.world.rpc('gettxout', [u.txid, u.vout, true]).catch(() => null)) as { confirmations?: number } | null;
  return out ? (out.confirmations ?? 0) : -1;
}

/** The units whose UTXO the node reports with at least `min` confirmations. */
async function confirmedAtLeast<U extends { utxo: { txid: string; vout: number } }>(s: SimState, units: U[], min: number): Promise<U[]> {
  const conf = await Promise.all(units.map((u) => confirmationsOf(s, u.utxo)));
  return units.filter((_, i) => conf[i]! >= min);
}

/** Exact offers need their unit's UTXO final (3 confirmations, the contract's rule): at most `n` random candidates asked. */
const finalUnits = <U extends { utxo: { txid: string; vout: number } }>(s: SimState, rng: Rng, units: U[], n = 6) => confirmedAtLeast(s, rng.sample(units, n), 3);

type Book = { asks: Array<{ listings: Array<{ seller: string; asset: string; utxo_txid: string; utxo_vout: number }> }> };

type BookListing = Book['asks'][number]['listings'][number];

/** A listing's unit as the helpers here name units. */
const unitOf = (l: Pick<BookListing, 'asset' | 'utxo_txid' | 'utxo_vout'>) => ({ asset: l.asset, utxo: { txid: l.utxo_txid, vout: l.utxo_vout } });

/** The trader's own units on a collection's book. */
const mineIn = (book: Book, t: Trader) => book.asks.flatMap((level) => level.listings).filter((l) => l.seller === t.address).map(unitOf);

/** The trader's unlisted attached units (of a collection's assets, or any) with at least `minConf` confirmations. */
async function heldIn(s: SimState, t: Trader, slug: string | null, minConf: number) {
  const assets = slug === null ? null : new Set(s.assets.get(slug) ?? []);
  return confirmedAtLeast(s, (await attachedUnits(s, t)).filter((u) => !assets || assets.has(u.asset)), minConf);
}

const skip = (why: string) => `skip:${why}`;

/**
 * What an integrator does after a 409 on a listing (the contract's retry rule: re-read): it reads
 * the collection's book again, through the balancer like every read, and expects the listing the
 * market no longer sells to be gone. The read may meet another instance that has not yet heard
 * of the claim, so it is given two more reads a second apart; a listing still shown then while
 * the market's store says it is not for sale is a stale book after a trade. The error is rethrown
 * (the outcome is the 409).
 */
async function rereadAfterConflict(s: SimState, t: Trader, slug: string, e: unknown): Promise<never> {
  const id = e instanceof MarketError && e.code === 'checkout_changed' ? e.extras.listing_id : undefined;
  if (typeof id !== 'string') throw e;
  for (let read = 0; ; read++) {
    if (!(await bookListings(t, slug)).some((l) => l.id === id)) throw e;
    const [row] = await s.world.withDb((q) => q(`select state from listings where id = ?`, [id]));
    // On sale again (the settlement that took it was released): the book is right to show it.
    if (row?.state === 'active') throw e;
    if (read === 2) throw new Error(`read after 409: the ${slug} book still shows ${id} ${read} s after the 409 named it, while the listing is ${row?.state ?? 'gone'}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** A quote for one foreign ask of a drawn collection, signed by the trader; undefined on an empty book. */
async function signedQuote(s: SimState, t: Trader, rng: Rng) {
  const slug = rng.pick(s.collections);
  const asks = (await bookListings(t, slug)).filter((l) => l.seller !== t.address);
  if (!asks.length) return undefined;
  const l = rng.pick(asks);
  const q = (await t.client.http.call('POST /v1/checkout/quotes', { body: { lines: [{ listing_id: l.id }], delivery_address: t.address } })).result;
  const signed = await t.signer.signPsbt(q.psbt_hex!, q.inputs_to_sign, 'ALL');
  const complete = () => t.client.http.call('POST /v1/checkout/quotes/{id}/complete', { params: { id: q.id }, body: { psbt_hex: signed }, idempotent: true });
  return { q, complete, slug };
}

export const ACTIONS: Record<string, { weight: number; run: Action }> = {
  /** Attach one unit held at the address and list it, in one signed submission. */
  list: {
    weight: 14,
    run: async (s, t, rng) => {
      const price = rng.int(6, 300) * 1_000;
      // A unit already attached (attached delivery, an ended listing) is listed as it is (reuse mode).
      const attached = rng.chance(0.6) ? await heldIn(s, t, null, 1) : [];
      if (attached.length) {
        const u = rng.pick(attached);
        // Confirmed, so the draft is ready at once; a reorg may still make it wait a block or two.
        const l = await t.client.list({ asset: u.asset, asset_utxo: u.utxo, price_sats: price, expires_at: now() + DAY, idempotency_key: `sim-${t.id}-${rng.int(0, 1e9)}`, wait: { intervalMs: 2_000, timeoutMs: 30_000 } });
        return `listed:${l.id}`;
      }
      const held = await addressBalances(s, t.address);
      if (!held.length) return skip('nothing_held');
      const b = rng.pick(held);
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
      // Half the one-line buyers take the unit attached (then listed as it is, or bid for exactly); the contract delivers a cart of several detached.
      const mode = n === 1 && rng.chance(0.5) ? 'attached' : 'detached';
      const op = await t.client.buy({ lines, delivery_mode: mode, delivery_address: t.address, maxSpendSats: Math.ceil(total * 1.05) + 60_000 }).catch((e: unknown) => rereadAfterConflict(s, t, slug, e));
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
      return `completed:${(await quoted.complete().catch((e: unknown) => rereadAfterConflict(s, t, quoted.slug, e))).result.status}`;
    },
  },

  /**
   * A wallet that signs the buyer's inputs with another sighash than the quote asks (ALL): NONE
   * would let anyone redirect the outputs, SINGLE leaves the rest of the transaction open. The
   * market must refuse it with a 4xx and settle nothing.
   */
  wrong_sighash: {
    weight: 1,
    run: async (s, t, rng) => {
      const asks = (await bookListings(t, rng.pick(s.collections))).filter((l) => l.seller !== t.address);
      if (!asks.length) return skip('empty_book');
      const q = (await t.client.http.call('POST /v1/checkout/quotes', { body: { lines: [{ listing_id: rng.pick(asks).id }], delivery_address: t.address } })).result;
      const tx = Transaction.fromPSBT(hex.decode(q.psbt_hex!), { ...READ_TX_OPTS, allowUnknownInputs: true });
      // SINGLE only where every input signed has its output (a wallet refuses SINGLE past the last output).
      const single = q.inputs_to_sign.every((i) => i < tx.outputsLength) ? [['SINGLE', SigHash.SINGLE] as const] : [];
      const [name, flag] = rng.pick([['NONE', SigHash.NONE], ['NONE|ANYONECANPAY', SigHash.NONE_ANYONECANPAY], ...single, ['ALL|ANYONECANPAY', SigHash.ALL_ANYONECANPAY]] as const);
      for (const i of q.inputs_to_sign) {
        // A taproot key path needs the internal key, as the wallet adds it before signing.
        tx.updateInput(i, { sighashType: flag, ...(t.signer.type === 'p2tr' ? { tapInternalKey: hex.decode(t.signer.bidder_pubkey) } : {}) }, true);
        tx.signIdx(t.signer.privateKey, i, [flag]);
      }
      try {
        await t.client.http.call('POST /v1/checkout/quotes/{id}/complete', { params: { id: q.id }, body: { psbt_hex: hex.encode(tx.toPSBT()) } });
      } catch (e) {
        if (e instanceof MarketError && e.status !== null && e.status >= 400 && e.status < 500) return `refused:${name}:${e.code}`;
        throw e;
      }
      throw new Error(`the market completed a checkout whose buyer signed with ${name}`);
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
      // One target most often, sometimes two alternatives (an asset, the collection, a trait of it).
      const targets = distinct(Array.from({ length: rng.chance(0.7) ? 1 : 2 }, () => drawTarget(s.catalog, rng, slug)));
      // Half the bids ask for the unit attached (the slot then carries its delivery output's sats too).
      const placed = await t.client.placeBids({ price_sats: rng.int(6, 200) * 1_000, slots: rng.int(1, 2), targets, expires_at: now() + DAY, delivery_mode: rng.chance(0.5) ? 'attached' : 'detached', maxFeeSats: 20_000 });
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
      // A listed unit, or one another trader holds unlisted, that the offer's target takes (as the
      // catalogue reads); only a final one can be authorized.
      const takes = (asset: string) => targetTakes(o as Target, s.catalog.find((e) => e.asset === asset));
      const listed = (await Promise.all(slugs.map((slug) => bookListings(t, slug)))).flat()
        .filter((l) => l.seller !== t.address && takes(l.asset))
        .map(unitOf);
      const held = await othersUnits(s, t, o.asset ? [o.asset] : rng.sample(slugs.flatMap((slug) => s.assets.get(slug) ?? []).filter(takes), 3));
      const units = await finalUnits(s, rng, [...listed, ...held]);
      if (!units.length) return skip('no_unit');
      const u = rng.pick(units);
      const a = await t.client.authorizeExact({
        offer_id: o.id, slot: { txid: o.bid_txid, vout: o.bid_vout }, price_sats: o.price_sats,
        delivery_mode: o.delivery.mode as 'detached' | 'attached', delivery_address: o.delivery.address, target_outpoint: u.utxo, maxFeeSats: 20_000,
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
      const prevOut = Transaction.fromRaw(hex.decode(prev), READ_TX_OPTS).getOutput(o.bid_vout);
      const amount = prevOut.amount!;
      // Built here, signed by the trader's own wallet adapter (ALL), finalized and sent as a wallet's owner would.
      const unsigned = new Transaction({ allowUnknownOutputs: true });
      unsigned.addInput({ txid: o.bid_txid, index: o.bid_vout, witnessUtxo: { script: prevOut.script!, amount } });
      unsigned.addOutputAddress(t.address, amount - 1_000n, networkParams('regtest'));
      const tx = Transaction.fromPSBT(hex.decode(await t.signer.signPsbt(hex.encode(unsigned.toPSBT()), [0], 'ALL')), READ_TX_OPTS);
      tx.finalize();
      try {
        await s.world.rpc('sendrawtransaction', [tx.hex]);
        return 'slot_spent';
      } catch (e) {
        return skip(`node_refused:${(e as Error).message.slice(0, 60)}`);
      }
    },
  },

  /**
   * A bidder backs out another way: it replaces its funding transaction before it confirms (its
   * inputs spent to itself at a higher fee, as a wallet's "cancel" does), so the slots never exist.
   */
  replace_funding: {
    weight: 1,
    run: async (s, t, rng) => {
      const offers = (await t.client.http.call('GET /v1/address/{address}/offers', { params: { address: t.address }, query: { status: 'active' } })).result;
      const pending: Array<{ txid: string; raw: string }> = [];
      for (const txid of new Set(offers.map((o) => o.bid_txid))) {
        const v = (await s.world.rpc('getrawtransaction', [txid, true]).catch(() => null)) as { hex: string; confirmations?: number } | null;
        if (v && !v.confirmations) pending.push({ txid, raw: v.hex });
      }
      if (!pending.length) return skip('no_unconfirmed_funding');
      const f = rng.pick(pending);
      const funding = Transaction.fromRaw(hex.decode(f.raw), READ_TX_OPTS);
      const unsigned = new Transaction({ allowUnknownOutputs: true });
      let total = 0n;
      for (let i = 0; i < funding.inputsLength; i++) {
        const input = funding.getInput(i);
        const source = (await s.world.rpc('getrawtransaction', [hex.encode(input.txid!), false]).catch(() => null)) as string | null;
        if (!source) return skip('funding_input_unknown');
        const prevOut = Transaction.fromRaw(hex.decode(source), READ_TX_OPTS).getOutput(input.index!);
        unsigned.addInput({ txid: input.txid!, index: input.index!, witnessUtxo: { script: prevOut.script!, amount: prevOut.amount! } });
        total += prevOut.amount!;
      }
      // Pays well above the funding's own fee (itself at 1-5 sat/vB), so Core replaces it.
      unsigned.addOutputAddress(t.address, total - 6_000n, networkParams('regtest'));
      const tx = Transaction.fromPSBT(hex.decode(await t.signer.signPsbt(hex.encode(unsigned.toPSBT()), Array.from({ length: funding.inputsLength }, (_, i) => i), 'ALL')), READ_TX_OPTS);
      tx.finalize();
      try {
        await s.world.rpc('sendrawtransaction', [tx.hex]);
      } catch (e) {
        return skip(`node_refused:${(e as Error).message.slice(0, 60)}`);
      }
      s.world.replacedFundings.set(f.txid, tx.id);
      return 'funding_replaced';
    },
  },

  /** A collection offer: one price for any unit of a collection, escrowed with the market signer's key. */
  collection_offer: {
    weight: 4,
    run: async (s, t, rng) => {
      const slug = rng.pick(s.collections);
      // One to three alternatives, each at its own price: the collection, an asset of it, or a trait.
      const targets = distinct(Array.from({ length: rng.int(1, 3) }, () => ({ ...drawTarget(s.catalog, rng, slug), price_sats: rng.int(6, 120) * 1_000 })));
      const placed = await t.client.placeCollectionOffer({
        targets,
        bidder_pubkey: t.signer.bidder_pubkey, expires_at: now() + DAY, maxFeeSats: 20_000,
      });
      t.collectionOffers.push({ funding_set_id: placed.funding_set_id, parent_txid: placed.parent_txid, offers: placed.offers.map((o) => ({ id: o.id })) });
      return `collection_offer:${placed.funding_set_id}`;
    },
  },

  /** A seller sells one of its listed units into a foreign collection offer on the book (its listing ends with it). */
  collection_accept: {
    weight: 4,
    run: async (s, t, rng) => {
      const slug = rng.pick(s.collections);
      const book = (await t.client.http.call('GET /v1/collections/{slug}/book', { params: { slug } })).result;
      const mine = [...mineIn(book, t), ...(await heldIn(s, t, slug, 1))];
      if (!mine.length) return skip('no_unit');
      const u = rng.pick(mine);
      let parent: string;
      if (rng.chance(0.5)) {
        // The unit first: the best live alternative its asset matches, as the market reads it.
        const matching = (await t.client.http.call('GET /v1/assets/{asset}/policy-offers', { params: { asset: u.asset } })).result.filter((o) => o.bidder !== t.address);
        if (!matching.length) return skip('no_matching_collection_offer');
        parent = matching[0]!.parent_txid;
      } else {
        // From the book: a foreign collection offer whose target takes the unit, as the catalogue reads it.
        const entry = s.catalog.find((e) => e.asset === u.asset);
        const offers = book.offers.filter((o) => o.id.startsWith('po_') && o.bidder !== t.address && targetTakes(o as Target, entry));
        if (!offers.length) return skip('no_collection_offer');
        parent = rng.pick(offers).bid_txid;
      }
      const done = await t.client.acceptCollectionOffer({ parent_txid: parent, asset_utxo: u.utxo });
      return `collection_accepted:${done.txid}`;
    },
  },

  /**
   * An integrator's bot registers a webhook for its owner events (once per trader). Its receiver
   * (sim/webhook-receiver.ts) verifies, dedupes and keeps what arrives; webhook_mirror compares it
   * with the owner log once the market settled.
   */
  register_webhook: {
    weight: 1,
    run: async (s, t) => {
      if (t.webhook) return skip('registered');
      const { url, key } = s.hooks.url(t.name);
      s.hooks.expect(key);
      try {
        const ep = await t.client.webhooks.register(url);
        const hook = { id: ep.id, secrets: [ep.secret], startSeq: ep.last_delivered_seq, got: [], requests: 0, refusedOnPurpose: 0 };
        s.hooks.add(key, hook);
        t.webhook = hook;
        return `webhook_registered:${ep.id}`;
      } finally {
        // An answer lost on the way leaves an endpoint whose secret nobody holds: from now on it is answered 410.
        s.hooks.forget(key);
      }
    },
  },

  /** The bot rotates its endpoint's secret; the receiver verifies with either while both sign. */
  rotate_webhook_secret: {
    weight: 1,
    run: async (_s, t) => {
      if (!t.webhook) return skip('no_webhook');
      const r = await t.client.webhooks.rotateSecret(t.webhook.id);
      t.webhook.secrets.unshift(r.secret);
      return 'webhook_secret_rotated';
    },
  },

  /** Soft cancel of one of the trader's collection offers (the signer refuses it from then on). */
  collection_cancel: {
    weight: 2,
    run: async (_s, t, rng) => {
      if (!t.collectionOffers.length) return skip('no_collection_offer');
      const placed = t.collectionOffers.splice(rng.int(0, t.collectionOffers.length - 1), 1)[0]!;
      // One alternative by its id, or the whole placement: both ways a wallet cancels.
      const r = await t.client.cancelCollectionOffer(rng.int(0, 1) ? { ...placed, offer_id: rng.pick(placed.offers).id } : placed);
      return `collection_cancelled:${r.already_signed ? 'already_signed' : 'soft'}`;
    },
  },

  /** Hard cancel: the funding spent back to the bidder, signed by its wallet and broadcast by it (the market relays nothing). */
  collection_hard_cancel: {
    weight: 1,
    run: async (s, t, rng) => {
      if (!t.collectionOffers.length) return skip('no_collection_offer');
      const placed = t.collectionOffers.splice(rng.int(0, t.collectionOffers.length - 1), 1)[0]!;
      const out = await t.client.hardCancelCollectionOffer({ id: placed.funding_set_id, maxFeeSats: 20_000 });
      try {
        await s.world.rpc('sendrawtransaction', [out.tx_hex]);
        return 'collection_hard_cancelled';
      } catch (e) {
        return skip(`node_refused:${(e as Error).message.slice(0, 60)}`);
      }
    },
  },

  /** A seller answers a foreign bid on one of its listed assets with a higher price over that unit. */
  counter: {
    weight: 3,
    run: async (s, t, rng) => {
      const slug = rng.pick(s.collections);
      const book = (await t.client.http.call('GET /v1/collections/{slug}/book', { params: { slug } })).result;
      const mine = [...mineIn(book, t), ...(await heldIn(s, t, slug, 1))];
      const pairs = mine.flatMap((u) => book.offers.filter((o) => !o.id.startsWith('po_') && o.scope === 'asset' && o.asset === u.asset && o.bidder !== t.address).map((o) => ({ u, o })));
      if (!pairs.length) return skip('no_bid_on_mine');
      const { u, o } = rng.pick(pairs);
      const c = await t.client.counter({ offer_id: o.id, asset_outpoint: u.utxo, price_sats: o.price_sats + rng.int(1, 5) * 1_000, expires_at: now() + 3_600 });
      return `countered:${c.id}`;
    },
  },

  /** A bidder takes a counter it received: a bid naming the unit at the counter's price, authorized once its funding confirms. */
  take_counter: {
    weight: 3,
    run: async (_s, t, rng) => {
      const pending = t.counterBids.shift();
      if (pending) {
        const a = await t.client.authorizeExact({
          offer_id: pending.offer_id, slot: pending.slot, price_sats: pending.price_sats,
          delivery_mode: 'detached', delivery_address: t.address, target_outpoint: pending.target_outpoint, maxFeeSats: 20_000,
        });
        return `counter_authorized:${a.authorization_id}`;
      }
      const received = [];
      for await (const c of t.client.counters()) received.push(c);
      if (!received.length) return skip('no_counter');
      const c = rng.pick(received);
      const placed = await t.client.placeBids({ price_sats: c.price_sats, slots: 1, targets: [{ scope: 'asset', asset: c.asset, target_outpoint: c.target_outpoint }], expires_at: now() + DAY, maxFeeSats: 20_000 });
      const slot = placed.funding_slots[0]!;
      t.counterBids.push({ offer_id: slot.offer_ids[0]!, slot: { txid: slot.txid, vout: slot.vout }, price_sats: c.price_sats, target_outpoint: c.target_outpoint });
      return `counter_bid:${slot.offer_ids[0]}`;
    },
  },

  /**
   * A sniper lifts a plain pair: it reads the node's public mempool for a checkout carrying a
   * listing's signed half (a key-path or P2WPKH input signed SINGLE|ANYONECANPAY), copies that
   * input and its output into a transaction of its own that pays the seller as signed and takes
   * the unit (output 0), at a fee that replaces the checkout. The market must record the conflict
   * (settlement conflicted, listing exposed, then ended when the spend is mined), lose nothing and
   * tell the truth about it.
   */
  snipe: {
    weight: 2,
    run: async (s, t, rng) => {
      const pool = ((await s.world.rpc('getrawmempool', [])) as string[]).slice(0, 40);
      const pairs: Array<{ txid: string; tx: Transaction; k: number }> = [];
      for (const txid of pool) {
        const raw = (await s.world.rpc('getrawtransaction', [txid, false]).catch(() => null)) as string | null;
        if (!raw) continue;
        const tx = Transaction.fromRaw(hex.decode(raw), READ_TX_OPTS);
        for (let k = 0; k < tx.inputsLength && k < tx.outputsLength; k++) {
          const w = tx.getInput(k).finalScriptWitness;
          const sig = w?.[0];
          // A key-path signature with an explicit hash type is 65 bytes (a 64-byte one is DEFAULT,
          // whatever its last byte: day 9125 took two buyers' for pairs); P2WPKH's is DER.
          const explicit = w?.length === 1 ? sig?.length === 65 : w?.length === 2 && sig?.[0] === 0x30;
          if (w && sig && explicit && sig[sig.length - 1] === 0x83) pairs.push({ txid, tx, k });
        }
      }
      if (!pairs.length) return skip('no_plain_pair');
      const { txid, tx, k } = rng.pick(pairs);
      const pairIn = tx.getInput(k);
      const pairOut = tx.getOutput(k);
      const prevRaw = (await s.world.rpc('getrawtransaction', [hex.encode(pairIn.txid!), false]).catch(() => null)) as string | null;
      const entry = (await s.world.rpc('getmempoolentry', [txid]).catch(() => null)) as { fees: { base: number } } | null;
      if (!prevRaw || !entry) return skip('checkout_gone');
      const prevOut = Transaction.fromRaw(hex.decode(prevRaw), READ_TX_OPTS).getOutput(pairIn.index!);
      const fee = BigInt(Math.round(entry.fees.base * 1e8)) * 3n + 2_000n;
      // One of its own confirmed coins, large enough (attached units sit on small outputs).
      const coins = ((await (await fetch(`${s.world.devnet.url}/devnet/addresses/${t.address}/utxos`)).json()) as { result: Array<{ txid: string; vout: number; value_sats: number; confirmations: number }> }).result
        .filter((c) => c.confirmations > 0 && BigInt(c.value_sats) > pairOut.amount! + fee + 20_000n);
      if (!coins.length) return skip('no_coin');
      const coin = rng.pick(coins);
      const snipe = new Transaction({ allowUnknownOutputs: true, version: tx.version, lockTime: tx.lockTime });
      snipe.addInput({ txid: coin.txid, index: coin.vout, witnessUtxo: { script: t.signer.script, amount: BigInt(coin.value_sats) } });
      // The pair's witness goes in after the outputs: a finalized input would lock them (scure
      // cannot tell its SINGLE|ANYONECANPAY from ALL), and no signature here covers input 1.
      snipe.addInput({ txid: pairIn.txid!, index: pairIn.index!, sequence: pairIn.sequence!, witnessUtxo: { script: prevOut.script!, amount: prevOut.amount! } });
      snipe.addOutput({ script: t.signer.script, amount: 330n }); // the first output takes the unit
      snipe.addOutput({ script: pairOut.script!, amount: pairOut.amount! }); // the seller, as its half says (SINGLE: same index)
      snipe.addOutput({ script: t.signer.script, amount: BigInt(coin.value_sats) + prevOut.amount! - 330n - pairOut.amount! - fee });
      const signed = Transaction.fromPSBT(hex.decode(await t.signer.signPsbt(hex.encode(snipe.toPSBT()), [0], 'ALL')), READ_TX_OPTS);
      signed.updateInput(1, { finalScriptWitness: pairIn.finalScriptWitness! }, true);
      signed.finalizeIdx(0);
      try {
        await s.world.rpc('sendrawtransaction', [signed.hex]);
        return `sniped:${txid}`;
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
      } catch (e) {
        if (e instanceof MarketError && e.status !== null && e.status >= 400 && e.status < 500) return `refused:${e.code}`;
        throw e;
      }
      // Outside the try: an accepted mistake is the market's fault, not a refusal to count.
      throw new Error('the market accepted a malformed request');
    },
  },
};

export const WEIGHTS = Object.fromEntries(Object.entries(ACTIONS).map(([k, v]) => [k, v.weight])) as Record<string, number>;
