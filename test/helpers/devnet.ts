/**
 * Devnet test helpers: a devnet on a fresh store of the backend under test, funded wallets,
 * and a small transaction builder that signs every input with a chosen sighash.
 *
 *   const t = await openTestDevnet();
 *   const coin = await fund(t.devnet, alice, 100_000);
 *   const hex = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 99_000n }]);
 *   await t.devnet.sendRawTransaction(hex);
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import { SigHash, Transaction } from '@scure/btc-signer';
import { ManualClock } from '../../src/clock.js';
import { Devnet, type DevnetOptions } from '../../src/chain/devnet/index.js';
import { TxRejected } from '../../src/chain/ports.js';
import { testStore, type TestStoreHandle } from './store.js';
import { signInput, walletInput, type TestWallet } from './wallets.js';

export interface TestDevnet {
  devnet: Devnet;
  clock: ManualClock;
  handle: TestStoreHandle;
  /** Closes the devnet and its store, then opens both again on the same data. */
  reopen(options?: DevnetOptions): Promise<Devnet>;
  cleanup(): Promise<void>;
}

export async function openTestDevnet(options: DevnetOptions = {}): Promise<TestDevnet> {
  const handle = await testStore();
  const clock = new ManualClock();
  const t: TestDevnet = {
    devnet: await Devnet.open(handle.store, clock, { initialBlocks: 101, ...options }),
    clock,
    handle,
    async reopen(again = options) {
      await t.devnet.close();
      await handle.store.close();
      handle.store = await handle.reopen();
      t.devnet = await Devnet.open(handle.store, clock, again);
      return t.devnet;
    },
    async cleanup() {
      await t.devnet.close();
      await handle.cleanup();
    },
  };
  return t;
}

/** A spendable coin with what a signer needs (the raw parent for P2PKH inputs). */
export interface Coin {
  txid: string;
  vout: number;
  amount: bigint;
  prevTx: Uint8Array;
}

export function coinOf(devnet: Devnet, txid: string, vout: number): Coin {
  const prevTx = hexToBytes(devnet.rpc.getrawtransaction(txid, false) as string);
  const out = Transaction.fromRaw(prevTx, { allowUnknownOutputs: true }).getOutput(vout);
  return { txid, vout, amount: out.amount!, prevTx };
}

/** Output `vout` (worth `amount`) of a transaction not yet mined. */
export const mempoolCoin = (hexTx: string, vout: number, amount: bigint): Coin => ({ txid: txidOf(hexTx), vout, amount, prevTx: hexToBytes(hexTx) });

/** The TxRejected `sendrawtransaction` throws for `hexTx`; fails the test when it is accepted. */
export async function rejectionOf(devnet: Devnet, hexTx: string): Promise<TxRejected> {
  try {
    await devnet.sendRawTransaction(hexTx);
  } catch (e) {
    if (e instanceof TxRejected) return e;
    throw e;
  }
  throw new Error(`expected ${txidOf(hexTx)} to be refused`);
}

/** A confirmed coin of `sats` paid to `wallet` by the faucet. */
export async function fund(devnet: Devnet, wallet: TestWallet, sats: number): Promise<Coin> {
  const { txid, vout } = await devnet.faucet(wallet.address, sats);
  return coinOf(devnet, txid, vout);
}

export interface SpendInput {
  wallet: TestWallet;
  coin: Coin;
  /** Default ALL (0x01); taproot DEFAULT is 0x00. */
  sighash?: number;
  sequence?: number;
}

export interface BuildOptions {
  version?: number;
  lockTime?: number;
}

/** Signs and finalizes a transaction; returns its hex. `outputs` may be a function of input 0's txid (the message key). */
export function buildTx(
  inputs: SpendInput[],
  outputs: { script: Uint8Array; amount: bigint }[] | ((input0Txid: string) => { script: Uint8Array; amount: bigint }[]),
  opts: BuildOptions = {},
): string {
  const tx = new Transaction({ allowUnknownOutputs: true, allowUnknownInputs: true, version: opts.version ?? 2, lockTime: opts.lockTime ?? 0, allowUnknownVersion: true } as never);
  for (const i of inputs) {
    tx.addInput(walletInput(i.wallet, { txid: i.coin.txid, index: i.coin.vout, amount: i.coin.amount, prevTx: i.coin.prevTx, ...(i.sequence === undefined ? {} : { sequence: i.sequence }) }));
  }
  const outs = typeof outputs === 'function' ? outputs(inputs[0]!.coin.txid) : outputs;
  for (const o of outs) tx.addOutput(o);
  inputs.forEach((i, k) => signInput(tx, k, i.wallet, i.sighash ?? SigHash.ALL));
  tx.finalize();
  return tx.hex;
}

/** The txid of a raw transaction. */
export const txidOf = (hex: string): string => Transaction.fromRaw(hexToBytes(hex), { allowUnknownOutputs: true, allowUnknownInputs: true } as never).id;

/** The address-level balance of `asset` (raw, bigint) as the Counterparty port reports it. */
export async function addressBalance(devnet: Devnet, address: string, asset: string): Promise<bigint> {
  const rows = await devnet.counterparty.getAddressBalances(address);
  return rows.filter((r) => r.asset === asset && r.utxo === null).reduce((s, r) => s + BigInt(r.quantity_raw), 0n);
}

/** The balance of `asset` attached to `utxo` (raw, bigint). */
export async function utxoBalance(devnet: Devnet, utxo: string, asset: string): Promise<bigint> {
  const rows = await devnet.counterparty.getUtxoBalances(utxo);
  return rows.filter((r) => r.asset === asset).reduce((s, r) => s + BigInt(r.quantity_raw), 0n);
}

/** A seller's half of a trade: input 0 (the asset UTXO) and output 0 (the price), signed SINGLE|ANYONECANPAY. */
export interface SignedListing {
  input: { txid: string; index: number; witnessUtxo: { script: Uint8Array; amount: bigint }; finalScriptWitness: Uint8Array[] };
  output: { script: Uint8Array; amount: bigint };
}

export function signListing(seller: TestWallet, asset: Coin, priceSats: bigint): SignedListing {
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput(walletInput(seller, { txid: asset.txid, index: asset.vout, amount: asset.amount, prevTx: asset.prevTx }));
  tx.addOutput({ script: seller.script, amount: priceSats });
  signInput(tx, 0, seller, SigHash.SINGLE_ANYONECANPAY);
  // The half spends less than it pays, so scure will not finalize it; the witness is assembled here.
  const signed = tx.getInput(0);
  const witness = seller.family === 'p2tr' ? [signed.tapKeySig!] : [signed.partialSig![0]![1], seller.publicKey];
  if (seller.family === 'p2pkh') throw new Error('listings are signed by SegWit sellers');
  return {
    input: { txid: asset.txid, index: asset.vout, witnessUtxo: { script: seller.script, amount: asset.amount }, finalScriptWitness: witness },
    output: { script: seller.script, amount: priceSats },
  };
}

/**
 * A checkout: the buyer's coin at input 0 (signed ALL, it keys the OP_RETURN), output 0 from
 * `head` (default a 330-sat buyer output; a detach OP_RETURN for detached delivery, since Core
 * ignores a message preceded by two or more address outputs), each listing's pair at index
 * k = 1..n unchanged, then `tail` outputs.
 */
export function checkoutTx(p: {
  buyer: TestWallet;
  coin: Coin;
  listings: SignedListing[];
  head?: (input0Txid: string) => { script: Uint8Array; amount: bigint };
  tail: (input0Txid: string) => { script: Uint8Array; amount: bigint }[];
  version?: number;
}): string {
  const tx = new Transaction({ allowUnknownOutputs: true, version: p.version ?? 2 });
  tx.addInput(walletInput(p.buyer, { txid: p.coin.txid, index: p.coin.vout, amount: p.coin.amount, prevTx: p.coin.prevTx }));
  tx.addOutput(p.head ? p.head(p.coin.txid) : { script: p.buyer.script, amount: 330n });
  for (const l of p.listings) {
    tx.addInput(l.input, true);
    tx.addOutput(l.output, true);
  }
  for (const o of p.tail(p.coin.txid)) tx.addOutput(o, true);
  signInput(tx, 0, p.buyer, SigHash.ALL);
  tx.finalizeIdx(0);
  return tx.hex;
}
