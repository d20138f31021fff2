/**
 * Deterministic test wallets for every family the market deals with, plus the few signing
 * helpers tests need: fund an output, add it as a PSBT input, sign an input with a chosen
 * sighash (scure `signIdx`), sign a tapscript leaf, sign a BIP-322 message (bip322-js, an
 * independent implementation, so verification is cross-checked).
 *
 * Keys are sha256("test-wallet:" + label): stable across runs, never used for real funds.
 *
 *   const buyer = makeWallet('p2wpkh', 'buyer');
 *   const { txid, tx: prevTx } = fundingTx([{ script: buyer.script, amount: 50_000n }]);
 *   psbt.addInput(walletInput(buyer, { txid, index: 0, amount: 50_000n, prevTx }));
 *   signInput(psbt, 0, buyer, SigHash.ALL);
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { p2pkh, p2tr, p2wpkh, RawTx, Transaction, WIF } from '@scure/btc-signer';
import type { TransactionInputUpdate } from '@scure/btc-signer/psbt.js';
import { Signer } from 'bip322-js';
import { networkParams, type Network } from '../../src/bitcoin/networks.js';
import { READ_TX_OPTS, type Prevout } from '../../src/bitcoin/transaction.js';
import { TAPSCRIPT_LEAF_VERSION } from '../../src/bitcoin/taproot.js';

export type WalletFamily = 'p2pkh' | 'p2wpkh' | 'p2tr';

export interface TestWallet {
  family: WalletFamily;
  network: Network;
  privateKey: Uint8Array;
  /** 33-byte compressed public key. */
  publicKey: Uint8Array;
  /** 32-byte x-only key (the taproot internal key for P2TR). */
  xOnly: Uint8Array;
  address: string;
  /** The output script paying `address`. */
  script: Uint8Array;
  /** Compressed WIF on `network` (what bip322-js takes). */
  wif: string;
}

/** Deterministic private key for `label`. */
export function testPrivateKey(label: string | number): Uint8Array {
  let k = sha256(new TextEncoder().encode(`test-wallet:${label}`));
  while (!secp256k1.utils.isValidSecretKey(k)) k = sha256(k);
  return k;
}

/** A wallet of `family` on `network` (default regtest), the same for the same label. */
export function makeWallet(family: WalletFamily, label: string | number = 0, network: Network = 'regtest'): TestWallet {
  const privateKey = testPrivateKey(`${family}:${label}`);
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const xOnly = schnorr.getPublicKey(privateKey);
  const net = networkParams(network);
  const pay = family === 'p2pkh' ? p2pkh(publicKey, net) : family === 'p2wpkh' ? p2wpkh(publicKey, net) : p2tr(xOnly, undefined, net);
  return { family, network, privateKey, publicKey, xOnly, address: pay.address!, script: pay.script, wif: WIF(net).encode(privateKey) };
}

/**
 * A raw (non-witness) transaction paying `outputs`, spending a made-up outpoint named by `label`,
 * so that a test has a real txid and a real `nonWitnessUtxo` for P2PKH inputs. Pass different
 * labels to get different txids for the same outputs.
 */
export function fundingTx(outputs: Prevout[], label: string | number = 0): { tx: Uint8Array; txid: string } {
  const salt = sha256(new TextEncoder().encode(`funding:${label}`));
  const tx = RawTx.encode({
    version: 2,
    segwitFlag: false,
    inputs: [{ txid: salt, index: 0, finalScriptSig: new Uint8Array(), sequence: 0xffffffff }],
    outputs,
    witnesses: [],
    lockTime: 0,
  });
  return { tx, txid: Transaction.fromRaw(tx, READ_TX_OPTS).id };
}

/** A PSBT input spending `utxo` (paid to `wallet`) with the fields a signer and verifier need. */
export function walletInput(
  wallet: TestWallet,
  utxo: { txid: string; index: number; amount: bigint; prevTx?: Uint8Array; sequence?: number },
): TransactionInputUpdate {
  const base = { txid: utxo.txid, index: utxo.index, ...(utxo.sequence === undefined ? {} : { sequence: utxo.sequence }) };
  if (wallet.family === 'p2pkh') {
    if (!utxo.prevTx) throw new Error('P2PKH inputs need prevTx (nonWitnessUtxo)');
    return { ...base, nonWitnessUtxo: utxo.prevTx };
  }
  const withUtxo = { ...base, witnessUtxo: { script: wallet.script, amount: utxo.amount } };
  return wallet.family === 'p2tr' ? { ...withUtxo, tapInternalKey: wallet.xOnly } : withUtxo;
}

/**
 * Sign input `idx` of a PSBT with `wallet` using `sighash` (0x00 DEFAULT for taproot, 0x01 ALL,
 * 0x83 SINGLE|ANYONECANPAY, …). The input's PSBT `sighashType` is set first so scure uses it.
 * For ECDSA inputs DEFAULT (0x00) means ALL.
 */
export function signInput(tx: Transaction, idx: number, wallet: TestWallet, sighash: number): void {
  const hashType = sighash === 0 && wallet.family !== 'p2tr' ? 1 : sighash;
  if (hashType !== 0) tx.updateInput(idx, { sighashType: hashType }, true);
  if (!tx.signIdx(wallet.privateKey, idx, [hashType as 0])) throw new Error(`could not sign input ${idx}`);
}

/**
 * A BIP-342 signature of input `idx` for tapscript `leaf` (leaf version 0xc0): 64 bytes for
 * DEFAULT, 65 with the explicit type otherwise. `prevouts` are those of all inputs.
 */
export function signTapLeaf(
  tx: Transaction, idx: number, privateKey: Uint8Array, leaf: Uint8Array, prevouts: readonly Prevout[], hashType = 0,
): Uint8Array {
  const msg = tx.preimageWitnessV1(
    idx, prevouts.map((p) => p.script), hashType, prevouts.map((p) => p.amount), undefined, leaf, TAPSCRIPT_LEAF_VERSION,
  );
  const sig = schnorr.sign(msg, privateKey, new Uint8Array(32));
  return hashType === 0 ? sig : new Uint8Array([...sig, hashType]);
}

/**
 * BIP-322 message signature by bip322-js (simple for P2WPKH/P2TR, BIP-137 for P2PKH), base64,
 * without the `smp` prefix (as most wallets send it today).
 */
export function signMessageBip322(wallet: TestWallet, message: string): string {
  return Signer.sign(wallet.wif, wallet.address, message);
}

/** Hex of bytes, for assertion messages. */
export const toHex = (b: Uint8Array): string => hex.encode(b);
