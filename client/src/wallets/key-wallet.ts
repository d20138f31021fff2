/**
 * Wallets for bots, in one line: from a private key, a WIF or a BIP-39 mnemonic (BIP-32 paths:
 * BIP-86 for P2TR, BIP-84 for P2WPKH, BIP-44 for P2PKH), on the network the market serves.
 *
 *   const wallet = fromMnemonic(words, { type: 'p2tr', network: 'regtest' });
 *   await market.signIn(wallet);
 *
 * The key stays in the process; it signs exactly the inputs a flow asks for, with the sighash the
 * flow asks for (see sign-psbt.ts), and messages as BIP-322 simple (BIP-137 on P2PKH).
 */
import { hex } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { p2pkh, p2tr, p2wpkh, WIF } from '@scure/btc-signer';
import { MarketError } from '../errors.js';
import { params, type Network } from '../psbt.js';
import type { Sighash } from '../flow.js';
import { signBip137, signBip322Simple, type AddressType, type MessageProtocol } from './message.js';
import { preparePsbt, sighashByte, type OwnKey } from './sign-psbt.js';
import type { Wallet } from './wallet.js';

export interface KeyWalletOptions {
  /** P2TR (default), P2WPKH or P2PKH. */
  type?: AddressType;
  /** Default mainnet; must be the market's (the client refuses a mismatch). */
  network?: Network;
}

export interface KeyWallet extends Wallet {
  /** The private key (32 bytes): never sent anywhere. */
  readonly privateKey: Uint8Array;
  readonly script: Uint8Array;
}

const invalid = (field: string, what: string) => new MarketError('invalid_request', `${field}: ${what}`, null, { field });

/** A wallet over a raw 32-byte private key. */
export function fromPrivateKey(privateKey: Uint8Array, o: KeyWalletOptions = {}): KeyWallet {
  if (!secp256k1.utils.isValidSecretKey(privateKey)) throw invalid('privateKey', 'not a valid secp256k1 private key');
  const type = o.type ?? 'p2tr';
  const network = o.network ?? 'mainnet';
  const net = params(network);
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const xOnly = schnorr.getPublicKey(privateKey);
  const pay = type === 'p2pkh' ? p2pkh(publicKey, net) : type === 'p2wpkh' ? p2wpkh(publicKey, net) : p2tr(xOnly, undefined, net);
  const own: OwnKey = { type, script: pay.script, xOnly };
  return {
    address: pay.address!,
    type,
    network,
    publicKey: hex.encode(publicKey),
    bidder_pubkey: hex.encode(xOnly),
    privateKey,
    script: pay.script,
    async signPsbt(psbtHex: string, inputs: number[], sighash: Sighash) {
      const tx = preparePsbt(psbtHex, inputs, sighash, own);
      for (const i of inputs) {
        if (!tx.signIdx(privateKey, i, [sighashByte(sighash, type) as 0])) throw new MarketError('unsafe_psbt', `the wallet cannot sign input ${i} (not its key)`, null, { input: i });
      }
      return hex.encode(tx.toPSBT());
    },
    async signMessage(message: string, protocol: MessageProtocol = type === 'p2pkh' ? 'bip137' : 'bip322') {
      if (protocol === 'bip137') {
        if (type === 'p2tr') throw invalid('protocol', 'BIP-137 cannot sign for a taproot address; use bip322');
        return signBip137(privateKey, type, message);
      }
      if (type === 'p2pkh') throw invalid('protocol', 'BIP-322 simple has no P2PKH form; use bip137');
      return signBip322Simple(privateKey, type, pay.script, message);
    },
  };
}

/** A wallet from a WIF (the network is read from the WIF unless given). */
export function fromWif(wif: string, o: KeyWalletOptions = {}): KeyWallet {
  const network = o.network ?? (wif.startsWith('K') || wif.startsWith('L') || wif.startsWith('5') ? 'mainnet' : 'regtest');
  let key: Uint8Array;
  try {
    key = WIF(params(network)).decode(wif);
  } catch {
    throw new MarketError('network_mismatch', `the WIF is not a ${network} key`, null, { field: 'wif', network });
  }
  return fromPrivateKey(key, { ...o, network });
}

export interface MnemonicOptions extends KeyWalletOptions {
  passphrase?: string;
  /** m/purpose'/coin'/account' (default 0). */
  account?: number;
  /** …/change/index (default 0/0). */
  change?: 0 | 1;
  index?: number;
  /** A full derivation path instead (e.g. "m/84'/1'/0'/0/3"). */
  path?: string;
}

const PURPOSE: Record<AddressType, number> = { p2tr: 86, p2wpkh: 84, p2pkh: 44 };

/** The BIP-86/84/44 path of `type` on `network`: m/purpose'/coin'/account'/change/index (coin 0 on mainnet, 1 elsewhere). */
export function derivationPath(type: AddressType, network: Network, o: { account?: number; change?: 0 | 1; index?: number } = {}): string {
  return `m/${PURPOSE[type]}'/${network === 'mainnet' ? 0 : 1}'/${o.account ?? 0}'/${o.change ?? 0}/${o.index ?? 0}`;
}

/** A wallet from a BIP-39 mnemonic at the standard path of its type (or `path`). */
export function fromMnemonic(mnemonic: string, o: MnemonicOptions = {}): KeyWallet & { path: string } {
  const words = mnemonic.trim().split(/\s+/).join(' ');
  if (!validateMnemonic(words, wordlist)) throw invalid('mnemonic', 'not a valid BIP-39 English mnemonic');
  const type = o.type ?? 'p2tr';
  const network = o.network ?? 'mainnet';
  const path = o.path ?? derivationPath(type, network, o);
  const node = HDKey.fromMasterSeed(mnemonicToSeedSync(words, o.passphrase)).derive(path);
  if (!node.privateKey) throw invalid('path', `no private key at ${path}`);
  return { ...fromPrivateKey(node.privateKey, { type, network }), path };
}
