/**
 * The bid side of the workload: exact bids and their authorizations and accepts, a bidder backing
 * out (its slot spent, its funding replaced), collection offers and their accepts and cancels,
 * and counters. Weighted with the rest in actions.ts.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { networkParams } from '../src/bitcoin/networks.js';
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import { distinct, drawTarget, targetTakes, type Target } from './targets.js';
import { bookListings, DAY, finalUnits, heldIn, mineIn, now, othersUnits, skip, unitOf, sendToNode, type Action } from './action-kit.js';

export const OFFER_ACTIONS: Record<string, { weight: number; run: Action }> = {
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
      return sendToNode(s, tx.hex, 'slot_spent');
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
      return sendToNode(s, out.tx_hex, 'collection_hard_cancelled');
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
      t.madeCounters.push(c.id);
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
};
