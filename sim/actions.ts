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
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import type { Rng } from './rng.js';
import type { Trader } from './traders.js';
import { OFFER_ACTIONS } from './offer-actions.js';
import { UPKEEP_ACTIONS } from './upkeep-actions.js';
import { CHAIN_READ_ACTIONS } from './chain-reads.js';
import { WITHDRAW_ACTIONS } from './withdraw-actions.js';
import { addressBalances, bookListings, DAY, heldIn, now, skip, sendToNode, type Action, type SimState } from './action-kit.js';

export type { SimState } from './action-kit.js';

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
        const hook = { id: ep.id, secrets: [ep.secret], startSeq: ep.last_delivered_seq, got: [], requests: 0, refusedOnPurpose: 0, arrivals: new Map<string, number>(), replays: [] };
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

  /**
   * The bot asks for one logged delivery again (`…/deliveries/{id}/replay`), as after its receiver
   * lost what it stored: 202 with the queued row (`outcome: queued`, `replay_of` the delivery), and
   * the same event must reach the receiver once more (webhook_mirror, once settled).
   */
  replay_webhook: {
    weight: 1,
    run: async (_s, t, rng) => {
      const hook = t.webhook;
      if (!hook) return skip('no_webhook');
      const rows = (await t.client.http.call('GET /v1/address/{address}/webhooks/{id}/deliveries', { params: { address: t.address, id: hook.id }, query: { limit: 20 } })).result.filter((d) => d.outcome === 'succeeded');
      if (!rows.length) return skip('no_delivery');
      const d = rng.pick(rows);
      const before = hook.arrivals.get(`${d.event_id}:${d.seq}`) ?? 0;
      try {
        const q = await t.client.webhooks.replay(hook.id, d.id);
        if (q.outcome !== 'queued' || q.replay_of !== d.id || q.event_id !== d.event_id || q.seq !== d.seq) throw new Error(`replay of ${d.id} answered ${JSON.stringify(q)}`);
      } catch (e) {
        if (e instanceof MarketError && e.code === 'state_changed') return 'webhook_replay_refused';
        throw e;
      }
      hook.replays.push({ id: d.event_id, seq: d.seq, before });
      return 'webhook_replayed';
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
      // A node restarting answers -28 (warming up) for a while (day 9168 on Core): nothing to read then.
      const mempool = (await s.world.rpc('getrawmempool', []).catch(() => null)) as string[] | null;
      if (!mempool) return skip('node_unavailable');
      const pool = mempool.slice(0, 40);
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
      return sendToNode(s, signed.hex, `sniped:${txid}`);
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

  ...OFFER_ACTIONS,
  ...UPKEEP_ACTIONS,
  ...CHAIN_READ_ACTIONS,
  ...WITHDRAW_ACTIONS,
};

export const WEIGHTS = Object.fromEntries(Object.entries(ACTIONS).map(([k, v]) => [k, v.weight])) as Record<string, number>;
