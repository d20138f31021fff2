/**
 * Tip to market (#33): a `serve`-like market on SQLite with its background jobs running as in
 * production (the long poll at 10 minutes, so only the tip check can bring a block in time), and
 * rounds of one block each confirming three things of one seller: a sale (a checkout completed
 * before the block), an attach (a listing made in attach mode, live once its attach confirms) and
 * a spent slot (the seller moves a listed unit's coin outside the market). From the moment the
 * block is on the node (devnet `mine` returns) the book, the seller's owner feed and the public
 * feed are read every 10 ms over HTTP (through the response cache, as a client reads them) until
 * all three show all three changes. `tip_to_book_ms` is the p50 of those times, `tip_to_book_p99_ms`
 * the p99 (nearest rank). The block comes at a random phase of the tip check's period.
 *
 * Two worlds (tip-to-book-worlds.ts): the devnet (`tip_to_book_ms`), and a real Bitcoin Core
 * (`BITCOIND`, the real-Core lane's node) with the market on CHAIN=bitcoin-core and its
 * production adapters, Counterparty at the devnet ledger following that node
 * (`tip_to_book_core_ms`). There the block is Core's own `generatetoaddress`, and the ledger
 * parses it when the market's indexer first asks Counterparty after it, as Counterparty Core
 * would have parsed it by then.
 */
import { SigHash } from '@scure/btc-signer';
import { startJobs } from '../src/jobs.js';
import { importCatalog } from '../src/modules/market/catalog-import.js';
import { attachOutputScript } from '../src/counterparty/attach-detach.js';
import { apiCaller } from './race.js';
import { signPsbt } from '../test/helpers/market.js';
import { buildTx, mempoolCoin, txidOf } from '../test/helpers/devnet.js';
import { makeWallet, signMessageBip322, type TestWallet } from '../test/helpers/wallets.js';
import { devnetWorld, type TipWorld } from './tip-to-book-worlds.js';

type Json = Record<string, any>;

export const TIP_TO_BOOK_BOUNDS = { p50_ms: 1_000, p99_ms: 2_000 };

export interface TipToBook {
  rounds: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  tip_check_ms: number;
}

const ipOf = (k: number) => `10.77.${(k >> 8) & 255}.${k & 255}`;
const nearest = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]! * 10) / 10;
};

export async function tipToBookBench(rounds = 20, tipCheckMs = 1_000, openWorld: (env: Record<string, string>) => Promise<TipWorld> = devnetWorld): Promise<TipToBook> {
  const world = await openWorld({ INDEXER_INTERVAL_MS: '600000', TIP_CHECK_INTERVAL_MS: String(tipCheckMs) });
  const { ctx, api } = world;
  const call = apiCaller(api);
  let reads = 0;
  const read = async (p: string, token?: string) => (await call('GET', p, { ip: ipOf(1_000 + (reads++ % 50_000)), ...(token ? { token } : {}) })).body as Json;
  const signIn = async (w: TestWallet, ip: string) => {
    const c = (await call('POST', '/v1/auth/challenge', { body: { address: w.address }, ip })).body.result as Json;
    return ((await call('POST', '/v1/auth/verify', { body: { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message as string) }, ip })).body.result as Json).token as string;
  };
  const caughtUp = async () => {
    const tip = await ctx.chain.bitcoin.getBestBlockHash();
    for (let i = 0; (await ctx.indexer.cursor())?.hash !== tip; i++) {
      if (i > 3_000) throw new Error('tip-to-book: the indexer never caught up');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const jobs = await startJobs(ctx);
  try {
    // Setup: one seller per round (a seller's preflights have a budget of 20 a minute) with two
    // listed units (one to sell, one whose coin it will spend) and an issued asset to attach; one
    // funded buyer per round.
    const sellers = Array.from({ length: rounds }, (_, k) => makeWallet('p2wpkh', `tip-seller-${k}`));
    const sTokens: string[] = [];
    for (const [k, w] of sellers.entries()) sTokens.push(await signIn(w, ipOf(2 + k)));
    const buyers = Array.from({ length: rounds }, (_, k) => makeWallet('p2wpkh', `tip-buyer-${k}`));
    // One payment funds everyone: each buyer 300,000 sats; each seller two 20,000-sat coins (its
    // two units' attaches) and 300,000 (the attach-mode listing's funding).
    const payer = makeWallet('p2wpkh', 'tip-fan');
    const outs = [...buyers.map((b) => ({ script: b.script, amount: 300_000n })), ...sellers.flatMap((s) => [20_000n, 20_000n, 300_000n].map((amount) => ({ script: s.script, amount })))];
    const total = outs.reduce((t, o) => t + o.amount, 0n);
    const fee = 10_000n + 100n * BigInt(outs.length);
    const funding = await world.fund(payer.address, Number(total + fee) + 100_000);
    const fan = buildTx([{ wallet: payer, coin: funding }], [...outs, { script: payer.script, amount: funding.amount - total - fee }]);
    await ctx.chain.bitcoin.broadcast(fan);
    await world.mineAndFollow();
    // Two units per seller, each a fresh one-unit asset attached to a 330-sat output of its own (unit at output 0).
    const units: Array<{ asset: string; txid: string; hex: string }> = [];
    for (let k = 0; k < 2 * rounds; k++) {
      const w = sellers[k >> 1]!;
      const asset = await world.issue(w);
      const coin = mempoolCoin(fan, buyers.length + 3 * (k >> 1) + (k & 1), 20_000n);
      const hex = buildTx([{ wallet: w, coin }], (input0) => [
        { script: w.script, amount: 330n },
        { script: attachOutputScript({ input0Txid: input0, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
        { script: w.script, amount: coin.amount - 330n - 1_000n },
      ]);
      await ctx.chain.bitcoin.broadcast(hex);
      units.push({ asset, txid: txidOf(hex), hex });
    }
    const attachAssets: string[] = [];
    for (const w of sellers) attachAssets.push(await world.issue(w));
    await world.mineAndFollow();
    await importCatalog(ctx.store.db, {
      collections: [{ slug: 'tip-bench', name: 'Tip bench' }], artists: [],
      assets: [...units.map((u) => u.asset), ...attachAssets].map((asset) => ({ asset, collection: 'tip-bench' })),
    });
    await caughtUp();
    const expires = Math.floor(Date.now() / 1000) + 86_400;
    const listingIds: string[] = [];
    for (const [n, u] of units.entries()) {
      const w = sellers[n >> 1]!;
      const token = sTokens[n >> 1]!;
      const pf = (await call('POST', '/v1/listing-preflights', { body: { seller: w.address, asset: u.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: { txid: u.txid, vout: 0 }, price_sats: 20_000 + n * 10, idempotency_key: `tip-${n}` }, token, ip: ipOf(2 + (n >> 1)) })).body.result as Json;
      const psbt = signPsbt(pf.listing.psbt_hex as string, w, [0], SigHash.SINGLE_ANYONECANPAY);
      listingIds.push(((await call('POST', `/v1/listing-preflights/${pf.id}/listing`, { body: { psbt_hex: psbt, expires_at: expires }, token, ip: ipOf(2 + (n >> 1)) })).body.result as Json).id as string);
    }

    const took: number[] = [];
    for (let k = 0; k < rounds; k++) {
      const ip = ipOf(500 + k);
      const seller = sellers[k]!;
      const sToken = sTokens[k]!;
      const sold = listingIds[2 * k]!;
      const spent = listingIds[2 * k + 1]!;
      const spentUnit = units[2 * k + 1]!;
      // The sale: quoted, signed and completed (in the mempool).
      const buyer = buyers[k]!;
      const bToken = await signIn(buyer, ip);
      const q = (await call('POST', '/v1/checkout/quotes', { body: { lines: [{ listing_id: sold }] }, token: bToken, ip })).body.result as Json;
      const done = (await call('POST', `/v1/checkout/quotes/${q.id}/complete`, { body: { psbt_hex: signPsbt(q.psbt_hex as string, buyer, q.inputs_to_sign as number[], SigHash.ALL) }, token: bToken, ip })).body.result as Json;
      const saleTxid = (done.txid ?? q.txid) as string;
      // The spent slot: the seller moves the listed unit's coin to itself, outside the market
      // (its 330 sats pay the node's 0.1 sat/vB relay floor), before the attach picks its coins.
      const slot = mempoolCoin(spentUnit.hex, 0, 330n);
      await ctx.chain.bitcoin.broadcast(buildTx([{ wallet: seller, coin: slot }], [{ script: seller.script, amount: slot.amount - 30n }]));
      // The attach: an attach-mode listing, its attach signed and relayed, its listing signed.
      const d = (await call('POST', '/v1/listing-preflights', { body: { seller: seller.address, asset: attachAssets[k], quantity_raw: '1', price_sats: 90_000 + k, idempotency_key: `tip-attach-${k}` }, token: sToken, ip })).body.result as Json;
      await call('POST', `/v1/listing-preflights/${d.id}/attach`, { body: { psbt_hex: signPsbt(d.attach.psbt_hex as string, seller, [0], SigHash.ALL) }, token: sToken, ip });
      const attached = ((await call('POST', `/v1/listing-preflights/${d.id}/listing`, { body: { psbt_hex: signPsbt(d.listing.psbt_hex as string, seller, [0], SigHash.SINGLE_ANYONECANPAY), expires_at: expires }, token: sToken, ip })).body.result as Json).id as string;
      // A random phase of the tip check's period.
      await new Promise((r) => setTimeout(r, Math.random() * tipCheckMs));
      await world.mineBlock();
      const t0 = performance.now();
      for (;;) {
        const [book, owner, pub] = await Promise.all([
          read('/v1/collections/tip-bench/book'),
          read(`/v1/address/${seller.address}/events?limit=100`, sToken),
          read('/v1/events?limit=100'),
        ]);
        const inBook = new Set<string>((book.result.asks as Json[]).flatMap((a) => (a.listings as Json[]).map((l) => l.id as string)));
        const ownerKinds = new Set<string>((owner.result as Json[]).map((e) => `${e.kind}:${e.listing_id}`));
        const pubRows = pub.result as Json[];
        const bookOk = inBook.has(attached) && !inBook.has(sold) && !inBook.has(spent);
        const ownerOk = ownerKinds.has(`sale_confirmed:${sold}`) && ownerKinds.has(`listing_invalidated:${spent}`);
        const pubOk =
          pubRows.some((e) => e.kind === 'sale' && e.txid === saleTxid && e.confirmed_at !== null) &&
          pubRows.some((e) => e.kind === 'listed' && e.asset === attachAssets[k]) &&
          pubRows.some((e) => e.kind === 'delisted' && e.asset === spentUnit.asset && e.reason === 'invalid');
        if (bookOk && ownerOk && pubOk) break;
        if (performance.now() - t0 > 30_000) throw new Error(`tip-to-book round ${k}: not shown after 30 s (book ${bookOk}, owner ${ownerOk}, public ${pubOk})`);
        await new Promise((r) => setTimeout(r, 10));
      }
      took.push(performance.now() - t0);
      await caughtUp();
    }
    return { rounds, p50_ms: nearest(took, 0.5), p99_ms: nearest(took, 0.99), max_ms: nearest(took, 1), tip_check_ms: tipCheckMs };
  } finally {
    await jobs.stop();
    await world.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  tipToBookBench(Number(process.env.ROUNDS ?? 5)).then((r) => console.log(r), (e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
