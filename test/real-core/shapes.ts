/**
 * The transactions the market builds, on real coins, with the project's own builders
 * (src/counterparty, src/modules/exact-offers/compose.ts) and real keys, for the differential
 * suite. Each builder returns raw hex ready for both nodes.
 */
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { cosignedOutput, cosignedWitness, type CosignedOutput } from '../../src/counterparty/cosigned-listing.js';
import { buildPolicyChild, buildPolicyParent, escrowWitness, refundWitness, type Escrow } from '../../src/counterparty/policy-offer.js';
import { buildChild, buildParent, type ParentShape } from '../../src/modules/exact-offers/compose.js';
import { checkoutTx, signListing, txidOf, type Coin, type SignedListing } from '../helpers/devnet.js';
import { signInput, signTapLeaf, walletInput, type TestWallet } from '../helpers/wallets.js';

const TX_OPTS = { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true } as const;

export const outCoin = (hexTx: string, vout: number): Coin => {
  const tx = Transaction.fromRaw(hex.decode(hexTx), READ_TX_OPTS);
  return { txid: tx.id, vout, amount: tx.getOutput(vout).amount!, prevTx: hex.decode(hexTx) };
};

/** An attach of one unit to output 0 (330 sats; 546 for P2PKH, its dust limit), the OP_RETURN at 1, change at 2. */
export function attachTx(w: TestWallet, coin: Coin, fee = 700n): string {
  const unit = w.family === 'p2pkh' ? 546n : 330n;
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput(walletInput(w, { txid: coin.txid, index: coin.vout, amount: coin.amount, prevTx: coin.prevTx }));
  tx.addOutput({ script: w.script, amount: unit });
  tx.addOutput({ script: attachOutputScript({ input0Txid: coin.txid, asset: 'RAREPEPE', quantity: 1n, destinationVout: 0 }), amount: 0n });
  tx.addOutput({ script: w.script, amount: coin.amount - unit - fee });
  signInput(tx, 0, w, SigHash.ALL);
  tx.finalize();
  return tx.hex;
}

/** A plain checkout of `listings` by `buyer` paying `fee`, the platform fee to `platform`. */
export function plainCheckout(buyer: TestWallet, coin: Coin, listings: SignedListing[], platform: TestWallet, fee: bigint): string {
  const prices = listings.reduce((n, l) => n + l.output.amount, 0n);
  const assets = listings.reduce((n, l) => n + l.input.witnessUtxo.amount, 0n);
  return checkoutTx({
    buyer, coin, listings,
    tail: () => [{ script: platform.script, amount: 1_000n }, { script: buyer.script, amount: coin.amount + assets - 330n - prices - 1_000n - fee }],
  });
}

export { signListing };

/** A co-signed unit: the seller's leaf (SINGLE|ANYONECANPAY) and the market's DEFAULT signature over this very checkout. */
export function cosignedCheckout(p: { buyer: TestWallet; coin: Coin; seller: TestWallet; market: TestWallet; unit: Coin; out: CosignedOutput; price: bigint; platform: TestWallet; fee: bigint }): string {
  const tx = new Transaction({ ...TX_OPTS, version: 2 });
  tx.addInput(walletInput(p.buyer, { txid: p.coin.txid, index: p.coin.vout, amount: p.coin.amount, prevTx: p.coin.prevTx }));
  tx.addOutput({ script: p.buyer.script, amount: 330n });
  tx.addInput({ txid: p.unit.txid, index: p.unit.vout, witnessUtxo: { script: p.out.script, amount: p.unit.amount } });
  tx.addOutput({ script: p.seller.script, amount: p.price });
  tx.addOutput({ script: p.platform.script, amount: 1_000n });
  tx.addOutput({ script: p.buyer.script, amount: p.coin.amount + p.unit.amount - 330n - p.price - 1_000n - p.fee });
  signInput(tx, 0, p.buyer, SigHash.ALL);
  const prevouts = [{ script: p.buyer.script, amount: p.coin.amount }, { script: p.out.script, amount: p.unit.amount }];
  const sellerSig = signTapLeaf(tx, 1, p.seller.privateKey, p.out.leaf, prevouts, SigHash.SINGLE_ANYONECANPAY);
  const marketSig = signTapLeaf(tx, 1, p.market.privateKey, p.out.leaf, prevouts, SigHash.DEFAULT);
  tx.updateInput(1, { finalScriptWitness: cosignedWitness(p.out, marketSig, sellerSig) }, true);
  tx.finalizeIdx(0);
  return tx.hex;
}

export { cosignedOutput };

/**
 * The seller's pair lifted out of a checkout: input 0 and output 0 of a new transaction keep the
 * pair's input (with the witness it carried in the checkout) and its price output; the lifter
 * adds its own coin and change and pays `fee`.
 */
export function liftPair(checkoutHex: string, index: number, pairPrevout: { script: Uint8Array; amount: bigint }, lifter: TestWallet, coin: Coin, fee: bigint): string {
  const src = Transaction.fromRaw(hex.decode(checkoutHex), READ_TX_OPTS);
  const input = src.getInput(index);
  const output = src.getOutput(index);
  const tx = new Transaction({ ...TX_OPTS, version: 2 });
  tx.addInput({ txid: input.txid!, index: input.index!, sequence: input.sequence!, witnessUtxo: pairPrevout }, true);
  tx.addOutput({ script: output.script!, amount: output.amount! }, true);
  tx.addInput(walletInput(lifter, { txid: coin.txid, index: coin.vout, amount: coin.amount, prevTx: coin.prevTx }));
  tx.addOutput({ script: lifter.script, amount: coin.amount - (output.amount! - pairPrevout.amount) - fee });
  signInput(tx, 1, lifter, SigHash.ALL);
  // The pair's witness as it was in the checkout (its signatures never see the lifter's input).
  tx.updateInput(0, { finalScriptWitness: input.finalScriptWitness! }, true);
  tx.finalizeIdx(1);
  return tx.hex;
}

/** The bidder's funding with `slots` exact outputs of `slotSats`, change to the bidder. */
export function fundingTx(bidder: TestWallet, coin: Coin, slots: number, slotSats: bigint, fee: bigint): string {
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput(walletInput(bidder, { txid: coin.txid, index: coin.vout, amount: coin.amount, prevTx: coin.prevTx }));
  for (let i = 0; i < slots; i++) tx.addOutput({ script: bidder.script, amount: slotSats });
  tx.addOutput({ script: bidder.script, amount: coin.amount - BigInt(slots) * slotSats - fee });
  signInput(tx, 0, bidder, SigHash.ALL);
  tx.finalize();
  return tx.hex;
}

/** The exact-offer accept: the v3 parent (slot + unit, prefunded `parentFee`) and its CPFP child paying `childFee`. */
export function exactAccept(p: { bidder: TestWallet; slot: Coin; seller: TestWallet; unit: Coin; receive: TestWallet; platform: TestWallet; parentFee: number; childFee: number }) {
  const shape: ParentShape = {
    slot: { txid: p.slot.txid, vout: p.slot.vout, value: Number(p.slot.amount), script: p.bidder.script, spend: 'p2wpkh' },
    asset: { txid: p.unit.txid, vout: p.unit.vout, value: Number(p.unit.amount), script: p.seller.script, spend: 'p2wpkh' },
    delivery: { mode: 'detached', address: p.receive.address, script: null },
    sellerScript: p.seller.script,
    feeScript: p.platform.script,
    platformFee: 1_000,
    network: 'regtest',
  };
  const built = buildParent(shape, p.parentFee);
  const parent = Transaction.fromPSBT(hex.decode(built.psbt_hex), TX_OPTS);
  signInput(parent, 0, p.bidder, SigHash.ALL);
  signInput(parent, 1, p.seller, SigHash.ALL);
  parent.finalize();
  const childPsbt = buildChild(built.txid, built.proceeds, p.seller.script, p.childFee);
  const child = Transaction.fromPSBT(hex.decode(childPsbt.psbt_hex), TX_OPTS);
  signInput(child, 0, p.seller, SigHash.ALL);
  child.finalize();
  return { parent: parent.hex, child: child.hex };
}

/** The collection-offer accept package: zero-fee v3 parent into the escrow, child paying `childFee` (bidder's presignature and the market's signature on the accept leaf). */
export function policyAccept(p: {
  escrow: Escrow; bidder: TestWallet; funding: Coin; market: TestWallet; anchor: Coin; seller: TestWallet; unit: Coin; receive: TestWallet; platform: TestWallet; price: number; childFee: number;
}) {
  const escrowValue = Number(p.funding.amount);
  const parent = buildPolicyParent({
    funding: [{ txid: p.funding.txid, vout: p.funding.vout, amount: p.funding.amount, script: p.bidder.script }],
    anchor: { txid: p.anchor.txid, vout: p.anchor.vout, amount: p.anchor.amount, script: p.market.script },
    escrowScript: p.escrow.script, escrowValue, anchorReturnScript: p.market.script, changeScript: p.bidder.script, change: 0,
  });
  parent.updateInput(0, { tapInternalKey: p.bidder.xOnly }, true);
  parent.updateInput(1, { tapInternalKey: p.market.xOnly }, true);
  signInput(parent, 0, p.bidder, SigHash.DEFAULT);
  signInput(parent, 1, p.market, SigHash.DEFAULT);
  parent.finalize();
  const sellerSats = escrowValue + Number(p.unit.amount) - (escrowValue - p.price) - 1_000 - p.childFee;
  const child = buildPolicyChild({
    escrow: p.escrow, parentTxid: parent.id, escrowValue, deliveryScript: p.receive.script, price: p.price,
    asset: { txid: p.unit.txid, vout: p.unit.vout, amount: p.unit.amount, script: p.seller.script },
    sellerScript: p.seller.script, sellerSats, feeScript: p.platform.script, platformFee: 1_000,
  });
  const prevouts = [{ script: p.escrow.script, amount: BigInt(escrowValue) }, { script: p.seller.script, amount: p.unit.amount }];
  const bidderSig = signTapLeaf(child, 0, p.bidder.privateKey, p.escrow.leaf, prevouts, SigHash.SINGLE_ANYONECANPAY);
  const marketSig = signTapLeaf(child, 0, p.market.privateKey, p.escrow.leaf, prevouts, SigHash.DEFAULT);
  child.updateInput(0, { finalScriptWitness: escrowWitness(p.escrow, marketSig, bidderSig) }, true);
  signInput(child, 1, p.seller, SigHash.ALL);
  child.finalizeIdx(1);
  return { parent: parent.hex, child: child.hex };
}

/** The bidder's refund through the CSV leaf (sequence = the escrow's delay), `fee` paid. */
export function refundTx(escrow: Escrow, bidder: TestWallet, coin: Coin, fee: bigint): string {
  const tx = new Transaction({ ...TX_OPTS, version: 2 });
  tx.addInput({ txid: coin.txid, index: coin.vout, sequence: escrow.csv, witnessUtxo: { script: escrow.script, amount: coin.amount } });
  tx.addOutput({ script: bidder.script, amount: coin.amount - fee });
  const sig = signTapLeaf(tx, 0, bidder.privateKey, escrow.refundLeaf, [{ script: escrow.script, amount: coin.amount }], SigHash.DEFAULT);
  tx.updateInput(0, { finalScriptWitness: refundWitness(escrow, sig) }, true);
  return tx.hex;
}

/** A plain payment of `coin` (less `fee`) to `to`, version `version`, signed by `w` (over `signedAmount` when given: a bad signature). */
export function pay(w: TestWallet, coin: Coin, to: TestWallet, fee: bigint, opts: { version?: number; signedAmount?: bigint; outputs?: number } = {}): string {
  const tx = new Transaction({ ...TX_OPTS, version: opts.version ?? 2 });
  tx.addInput(walletInput(w, { txid: coin.txid, index: coin.vout, amount: opts.signedAmount ?? coin.amount, prevTx: coin.prevTx }));
  const n = opts.outputs ?? 1;
  const each = (coin.amount - fee) / BigInt(n);
  for (let i = 0; i < n; i++) tx.addOutput({ script: to.script, amount: i === n - 1 ? coin.amount - fee - each * BigInt(n - 1) : each });
  signInput(tx, 0, w, SigHash.ALL);
  tx.finalize();
  return tx.hex;
}

export { txidOf };
