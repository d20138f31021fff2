/**
 * The cases of the differential suite: each sends the market's transactions (or a contested
 * case) to both nodes through the harness `d` set by `useDifferential`.
 */
import { policyEscrow } from '../../src/counterparty/policy-offer.js';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx } from '../helpers/devnet.js';
import type { Differential } from './differential-harness.js';
import {
  attachTx, cosignedCheckout, cosignedOutput, exactAccept, fundingTx, liftPair, outCoin, pay, plainCheckout, policyAccept, refundTx, signListing, txidOf,
} from './shapes.js';

let d: Differential;
/** The harness the cases run on. */
export const useDifferential = (h: Differential) => {
  d = h;
};

const seller = makeWallet('p2wpkh', 'rc-seller');
const sellerTr = makeWallet('p2tr', 'rc-seller-tr');
const sellerPkh = makeWallet('p2pkh', 'rc-seller-pkh');
const buyer = makeWallet('p2wpkh', 'rc-buyer');
const bidder = makeWallet('p2wpkh', 'rc-bidder');
const bidderTr = makeWallet('p2tr', 'rc-bidder-tr');
const market = makeWallet('p2tr', 'rc-market');
const platform = makeWallet('p2wpkh', 'rc-platform');
const receive = makeWallet('p2wpkh', 'rc-receive');
const lifter = makeWallet('p2wpkh', 'rc-lifter');
const miner = makeWallet('p2wpkh', 'rc-coinbase');


const tma = (label: string, hexes: string[]) => d.both(label, 'testmempoolaccept', [hexes]);
const send = (label: string, hexTx: string) => d.both(label, 'sendrawtransaction', [hexTx]);
const pkg = (label: string, hexes: string[]) => d.both(label, 'submitpackage', [hexes]);
/** testmempoolaccept, then sendrawtransaction. */
const offer = async (label: string, hexTx: string) => {
  await tma(`${label}: testmempoolaccept`, [hexTx]);
  await send(`${label}: sendrawtransaction`, hexTx);
};

export const cases: Array<{ name: string; run: () => Promise<void> }> = [];
const shape = (name: string, run: () => Promise<void>) => cases.push({ name, run });

// ---- the shapes the market builds ----

for (const w of [seller, sellerTr, sellerPkh]) {
  shape(`attach from ${w.family.toUpperCase()}`, async () => {
    const [coin] = await d.fund([{ wallet: w, sats: 20_000 }]);
    await offer('attach', attachTx(w, coin!));
  });
}

shape('checkout with two plain SINGLE|ANYONECANPAY halves (P2WPKH and P2TR sellers)', async () => {
  const [a, b, c] = await d.fund([{ wallet: seller, sats: 330 }, { wallet: sellerTr, sats: 330 }, { wallet: buyer, sats: 200_000 }]);
  const hexTx = plainCheckout(buyer, c!, [signListing(seller, a!, 50_000n), signListing(sellerTr, b!, 60_000n)], platform, 1_500n);
  await offer('checkout', hexTx);
});

shape('checkout with a co-signed half (leaf: seller SINGLE|ANYONECANPAY, market DEFAULT)', async () => {
  const out = cosignedOutput(sellerTr.xOnly, market.xOnly, 'regtest');
  const [unit, coin] = await d.fund([{ wallet: { ...sellerTr, script: out.script }, sats: 330 }, { wallet: buyer, sats: 100_000 }]);
  await offer('co-signed checkout', cosignedCheckout({ buyer, coin: coin!, seller: sellerTr, market, unit: unit!, out, price: 40_000n, platform, fee: 1_200n }));
});

shape('bid funding with 20 exact slots', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 1_000_000 }]);
  await offer('funding', fundingTx(bidder, coin!, 20, 40_000n, 1_000n));
});

shape('exact offer: v3 parent below the floor with its CPFP child (submitpackage)', async () => {
  const [slot, unit] = await d.fund([{ wallet: bidder, sats: 40_000 }, { wallet: seller, sats: 330 }]);
  const { parent, child } = exactAccept({ bidder, slot: slot!, seller, unit: unit!, receive, platform, parentFee: 20, childFee: 1_000 });
  await send('child alone (parent unknown)', child);
  await send('parent alone', parent);
  await tma('testmempoolaccept of the package', [parent, child]);
  await pkg('submitpackage', [parent, child]);
  await pkg('submitpackage again (both known)', [parent, child]);
  // Recovery relaying a package a block has just confirmed (sim day 9162): each member is
  // refused alone as `txn-already-known`, which the adapter must read as "the node has it".
  await d.mine(1);
  await pkg('submitpackage after a block confirmed both', [parent, child]);
});

shape('exact offer: parent prefunded at the rate, sent alone', async () => {
  const [slot, unit] = await d.fund([{ wallet: bidder, sats: 40_000 }, { wallet: seller, sats: 330 }]);
  const { parent } = exactAccept({ bidder, slot: slot!, seller, unit: unit!, receive, platform, parentFee: 600, childFee: 0 });
  await offer('parent', parent);
});

shape('collection offer: zero-fee escrow parent and accept child (submitpackage)', async () => {
  const escrow = policyEscrow(bidderTr.xOnly, market.xOnly, 'regtest');
  const [funding, anchor, unit] = await d.fund([{ wallet: bidderTr, sats: 60_000 }, { wallet: market, sats: 1_000 }, { wallet: seller, sats: 330 }]);
  const { parent, child } = policyAccept({ escrow, bidder: bidderTr, funding: funding!, market, anchor: anchor!, seller, unit: unit!, receive, platform, price: 50_000, childFee: 1_500 });
  await send('zero-fee parent alone', parent);
  await pkg('submitpackage', [parent, child]);
});

shape('collection offer: the refund leaf before and at maturity', async () => {
  const escrow = policyEscrow(bidderTr.xOnly, market.xOnly, 'regtest');
  const [coin] = await d.fund([{ wallet: { ...bidderTr, script: escrow.script }, sats: 50_000 }]);
  const refund = refundTx(escrow, bidderTr, coin!, 500n);
  // Funded in the tip block: spendable by the CSV leaf in the block `csv` above it.
  await d.mine(escrow.csv - 2);
  await offer('one block early', refund);
  await d.mine(1);
  await offer('at maturity', refund);
});

// ---- contested cases ----

shape('partial package: the parent pays its own way, the child fails', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 50_000 }]);
  const parent = pay(bidder, coin!, seller, 1_000n, { version: 3 });
  const child = pay(seller, outCoin(parent, 0), seller, 1_000n, { version: 3, signedAmount: 49_000n + 1n });
  await tma('testmempoolaccept of the package', [parent, child]);
  await pkg('submitpackage', [parent, child]);
});

shape('testmempoolaccept of a package whose first member fails', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 50_000 }]);
  const parent = pay(bidder, coin!, seller, 1_000n, { version: 3, signedAmount: 50_000n + 1n });
  const child = pay(seller, outCoin(parent, 0), seller, 1_000n, { version: 3 });
  await tma('testmempoolaccept', [parent, child]);
  await pkg('submitpackage', [parent, child]);
});

shape('package RBF: an exact accept replaces the bidder\'s spend of its slot (package pays more)', async () => {
  const [slot, unit] = await d.fund([{ wallet: bidder, sats: 40_000 }, { wallet: seller, sats: 330 }]);
  await send('bidder spends the slot', pay(bidder, slot!, bidder, 500n));
  const { parent, child } = exactAccept({ bidder, slot: slot!, seller, unit: unit!, receive, platform, parentFee: 0, childFee: 6_000 });
  await pkg('accept package', [parent, child]);
});

shape('package RBF: the bidder\'s spend pays more, the accept package loses', async () => {
  const [slot, unit] = await d.fund([{ wallet: bidder, sats: 40_000 }, { wallet: seller, sats: 330 }]);
  await send('bidder spends the slot', pay(bidder, slot!, bidder, 20_000n));
  const { parent, child } = exactAccept({ bidder, slot: slot!, seller, unit: unit!, receive, platform, parentFee: 0, childFee: 6_000 });
  await pkg('accept package', [parent, child]);
});

shape('package RBF: a collection accept replaces the bidder\'s hard cancel', async () => {
  const escrow = policyEscrow(bidderTr.xOnly, market.xOnly, 'regtest');
  const [funding, anchor, unit] = await d.fund([{ wallet: bidderTr, sats: 60_000 }, { wallet: market, sats: 1_000 }, { wallet: seller, sats: 330 }]);
  await send('hard cancel (bidder spends its funding)', pay(bidderTr, funding!, bidderTr, 400n));
  const { parent, child } = policyAccept({ escrow, bidder: bidderTr, funding: funding!, market, anchor: anchor!, seller, unit: unit!, receive, platform, price: 50_000, childFee: 6_000 });
  await pkg('accept package', [parent, child]);
});

// The refusals an accept is held on (journal holdOnWait): a reorg put the unit's attach back in the mempool.
shape('an accept whose unit is unconfirmed: the exact parent alone, and the collection package', async () => {
  const escrow = policyEscrow(bidderTr.xOnly, market.xOnly, 'regtest');
  const [coin, slot, funding, anchor] = await d.fund([{ wallet: seller, sats: 20_000 }, { wallet: bidder, sats: 40_000 }, { wallet: bidderTr, sats: 60_000 }, { wallet: market, sats: 1_000 }]);
  const attach = attachTx(seller, coin!);
  await send('the attach, unconfirmed', attach);
  const unit = outCoin(attach, 0);
  const { parent } = exactAccept({ bidder, slot: slot!, seller, unit, receive, platform, parentFee: 600, childFee: 0 });
  await send('exact parent (v3) spending the unconfirmed unit', parent);
  const pa = policyAccept({ escrow, bidder: bidderTr, funding: funding!, market, anchor: anchor!, seller, unit, receive, platform, price: 50_000, childFee: 1_500 });
  await pkg('collection package whose child spends the unconfirmed unit', [pa.parent, pa.child]);
  await d.mine(1);
  await send('exact parent once the unit confirmed', parent);
});

// What recovery meets when a relayed package left the mempool and its child's other input was spent
// meanwhile (sim day 9122): the shape check answers before the inputs are looked at.
shape('a package whose parent is confirmed and whose child spends an output spent in the chain', async () => {
  const [coin, unit, other] = await d.fund([{ wallet: bidder, sats: 50_000 }, { wallet: seller, sats: 330 }, { wallet: seller, sats: 10_000 }]);
  const parent = pay(bidder, coin!, seller, 1_000n);
  await send('parent', parent);
  await d.mine(1);
  await send('the unit spent elsewhere', buildTx([{ wallet: seller, coin: unit! }, { wallet: seller, coin: other! }], [{ script: seller.script, amount: 9_330n }]));
  await d.mine(1);
  const child = buildTx([{ wallet: seller, coin: outCoin(parent, 0) }, { wallet: seller, coin: unit! }], [{ script: seller.script, amount: 48_000n }]);
  await pkg('submitpackage', [parent, child]);
  await send('the child alone', child);
});

// What recovery meets when a relayed package's child spends an output whose source neither node
// has (an attach a reorg returned to the mempool and a restart lost): the same shape answer for
// the package, `missing-inputs` for the child alone, and the source unknown to both reads the
// journal asks (src/settlement/dead-input.ts).
shape("a package whose parent is confirmed and whose child spends an output of a transaction the node does not have", async () => {
  const [coin, other] = await d.fund([{ wallet: bidder, sats: 50_000 }, { wallet: seller, sats: 10_000 }]);
  const parent = pay(bidder, coin!, seller, 1_000n);
  await send('parent', parent);
  await d.mine(1);
  const source = pay(seller, other!, seller, 500n); // signed, never broadcast
  const child = buildTx([{ wallet: seller, coin: outCoin(parent, 0) }, { wallet: seller, coin: outCoin(source, 0) }], [{ script: seller.script, amount: 56_000n }]);
  await pkg('submitpackage', [parent, child]);
  await send('the child alone', child);
  await d.both('the source, read', 'getrawtransaction', [txidOf(source), true]);
  await d.both("the source's output, read", 'gettxout', [txidOf(source), 0, true]);
});

// What recovery meets for a settlement mined in a block a reorg took away and then lost from the
// mempool (a day on Core 29.2, seed 9148: an anchor refill, then a node restart): Core's txindex
// still answers it, with the stale block's hash and 0 confirmations. Here a replacement takes it
// out of the mempool.
shape('a transaction of a block a reorg took away, no longer in the mempool', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 50_000 }]);
  const first = pay(bidder, coin!, seller, 1_000n);
  await send('the transaction', first);
  await d.mine(1);
  await d.core.rpc('invalidateblock', await d.core.rpc<string>('getbestblockhash'));
  await d.follower.sync();
  await send('a replacement at a higher fee', pay(bidder, coin!, bidder, 3_000n));
  await d.both('the transaction, read', 'getrawtransaction', [txidOf(first), true]);
  await d.both('the transaction, read raw', 'getrawtransaction', [txidOf(first), false]);
  await d.mine(1);
});

shape('TRUC sibling eviction by sendrawtransaction', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 60_000 }]);
  const parent = pay(bidder, coin!, seller, 1_000n, { version: 3, outputs: 2 });
  await send('parent', parent);
  await send('first child', pay(seller, outCoin(parent, 0), seller, 300n, { version: 3 }));
  await send('second child, higher fee', pay(seller, outCoin(parent, 1), seller, 3_000n, { version: 3 }));
});

shape('TRUC sibling eviction inside submitpackage', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 60_000 }]);
  const parent = pay(bidder, coin!, seller, 1_000n, { version: 3, outputs: 2 });
  await send('parent', parent);
  await send('bidder child', pay(seller, outCoin(parent, 0), seller, 300n, { version: 3 }));
  await pkg('parent again with a higher-fee seller child', [parent, pay(seller, outCoin(parent, 1), seller, 3_000n, { version: 3 })]);
});

shape('fee floor: 0.5 sat/vB', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 50_000 }]);
  await offer('payment at 0.5 sat/vB', pay(bidder, coin!, seller, 55n));
});

shape('fee floor: 0.05 sat/vB', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 50_000 }]);
  await offer('payment at 0.05 sat/vB', pay(bidder, coin!, seller, 5n));
});

shape('fee floor: a zero-fee v3 parent alone', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 50_000 }]);
  await offer('zero-fee v3', pay(bidder, coin!, seller, 0n, { version: 3 }));
});

shape('coinbase maturity: 99 and 100 blocks', async () => {
  const [hash] = await d.core.rpc<string[]>('generatetoaddress', 1, miner.address);
  const block = await d.core.rpc<{ tx: Array<{ hex: string }> }>('getblock', hash, 2);
  const coinbase = outCoin(block.tx[0]!.hex, 0);
  await d.mine(98);
  const spend = pay(miner, coinbase, miner, 2_000n);
  await offer('spent at depth 99', spend);
  await d.mine(1);
  // Another spend (a higher fee): a devnet that took the first one replaces it, no cascade.
  await offer('spent at depth 100', pay(miner, coinbase, miner, 3_000n));
});

shape('lifted plain pair: a higher-fee transaction takes the seller\'s half out of a checkout', async () => {
  const [a, c, l] = await d.fund([{ wallet: seller, sats: 330 }, { wallet: buyer, sats: 100_000 }, { wallet: lifter, sats: 100_000 }]);
  const checkout = plainCheckout(buyer, c!, [signListing(seller, a!, 50_000n)], platform, 1_000n);
  await send('checkout', checkout);
  await send('lifted pair, higher fee', liftPair(checkout, 1, { script: seller.script, amount: 330n }, lifter, l!, 5_000n));
});

shape('lifted co-signed pair: the market\'s signature does not travel', async () => {
  const out = cosignedOutput(sellerTr.xOnly, market.xOnly, 'regtest');
  const [unit, coin, l] = await d.fund([{ wallet: { ...sellerTr, script: out.script }, sats: 330 }, { wallet: buyer, sats: 100_000 }, { wallet: lifter, sats: 100_000 }]);
  const checkout = cosignedCheckout({ buyer, coin: coin!, seller: sellerTr, market, unit: unit!, out, price: 40_000n, platform, fee: 1_200n });
  await send('checkout', checkout);
  await send('lifted pair, higher fee', liftPair(checkout, 1, { script: out.script, amount: 330n }, lifter, l!, 5_000n));
});

shape('replacement without enough fee, and a double spend already confirmed', async () => {
  const [coin] = await d.fund([{ wallet: bidder, sats: 50_000 }]);
  const first = pay(bidder, coin!, seller, 1_000n);
  await send('first spend', first);
  await send('conflict paying the same', pay(bidder, coin!, bidder, 1_000n));
  await d.mine(1);
  await send('conflict after the first confirmed', pay(bidder, coin!, bidder, 3_000n));
  await send('the confirmed one again', first);
});

