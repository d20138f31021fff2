/**
 * Browser wallets as a `Wallet`, in one line each, over the signing APIs they document:
 *
 *   const wallet = await fromSatsConnect(request, { network: 'mainnet' });        // Xverse, Magic Eden (sats-connect's `request`)
 *   const wallet = await fromUnisat(window.unisat, { network: 'mainnet' });       // Unisat
 *   const wallet = await fromLeather(window.LeatherProvider, { network: 'mainnet' }); // Leather
 *
 * The client never loads a wallet's library: pass the provider the page already has. Each
 * adapter asks for the account's address and public key once, writes the sighash the flow needs
 * and the taproot internal key into the PSBT before the wallet sees it (sign-psbt.ts), asks for
 * exactly the inputs the flow names, never asks the wallet to finalize or broadcast, and signs
 * messages as BIP-322 (ECDSA/BIP-137 on request). A refusal in the wallet is `aborted`.
 */
import { base64, hex } from '@scure/base';
import { p2pkh, p2tr, p2wpkh } from '@scure/btc-signer';
import { MarketError } from '../errors.js';
import { params, type Network } from '../psbt.js';
import type { Sighash } from '../flow.js';
import type { AddressType, MessageProtocol } from './message.js';
import { preparePsbt, sighashByte, type OwnKey } from './sign-psbt.js';
import type { Wallet } from './wallet.js';

export interface BrowserWalletOptions {
  /** The market's network (the client checks it against the server's). */
  network?: Network;
  /** Which of the wallet's accounts signs: its taproot (ordinals) or its payment address (default p2tr when offered). */
  type?: AddressType;
}

const refused = (wallet: string, what: string, detail?: unknown) => new MarketError('aborted', `${wallet} did not ${what}${detail ? `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}` : ''}`, null, { wallet_error: detail });

/** The account's type, script and keys from its address and public key (hex, 33 or 32 bytes). */
function account(wallet: string, address: string, publicKeyHex: string, network: Network): OwnKey & { publicKey: string; bidder_pubkey: string } {
  const key = hex.decode(publicKeyHex);
  const xOnly = key.length === 33 ? key.slice(1) : key;
  const net = params(network);
  const candidates: Array<[AddressType, () => { address?: string; script: Uint8Array }]> = [
    ['p2tr', () => p2tr(xOnly, undefined, net)],
    ['p2wpkh', () => p2wpkh(key, net)],
    ['p2pkh', () => p2pkh(key, net)],
  ];
  for (const [type, pay] of candidates) {
    if (type !== 'p2tr' && key.length !== 33) continue;
    const p = pay();
    if (p.address === address) return { type, script: p.script, xOnly, publicKey: key.length === 33 ? publicKeyHex : '', bidder_pubkey: hex.encode(xOnly) };
  }
  throw new MarketError('network_mismatch', `${wallet}: ${address} is not an address of its public key on ${network}`, null, { field: 'address', network });
}

function keyWallet(own: ReturnType<typeof account>, address: string, network: Network, sign: Wallet['signPsbt'], message: Wallet['signMessage']): Wallet {
  return { address, type: own.type, network, publicKey: own.publicKey, bidder_pubkey: own.bidder_pubkey, signPsbt: sign, signMessage: message };
}

// ——— sats-connect (Xverse, Magic Eden) ———

/** sats-connect's `request(method, params)`: `{status: 'success', result}` or `{status: 'error', error}`. */
export type SatsConnectRequest = (method: string, params?: unknown) => Promise<{ status: 'success'; result: any } | { status: 'error'; error: { code?: number; message?: string } }>;

export async function fromSatsConnect(request: SatsConnectRequest, o: BrowserWalletOptions = {}): Promise<Wallet> {
  const network = o.network ?? 'mainnet';
  const call = async (method: string, p: unknown, what: string) => {
    const r = await request(method, p);
    if (r.status !== 'success') throw refused('sats-connect wallet', what, r.error);
    return r.result;
  };
  const got = await call('getAddresses', { purposes: ['ordinals', 'payment'], message: 'Sign in to the marketplace' }, 'share its addresses');
  const addresses = (got.addresses ?? got) as Array<{ address: string; publicKey: string; purpose?: string }>;
  const want = o.type ?? 'p2tr';
  const own = addresses.map((a) => ({ a, k: tryAccount(a.address, a.publicKey, network) })).find((x) => x.k?.type === want) ?? addresses.map((a) => ({ a, k: tryAccount(a.address, a.publicKey, network) })).find((x) => x.k);
  if (!own?.k) throw new MarketError('network_mismatch', `sats-connect wallet: no ${network} address of a supported type`, null, { field: 'address', network });
  const { a, k } = own;
  return keyWallet(k, a.address, network,
    async (psbtHex: string, inputs: number[], sighash: Sighash) => {
      const tx = preparePsbt(psbtHex, inputs, sighash, k);
      const r = await call('signPsbt', { psbt: base64.encode(tx.toPSBT()), signInputs: { [a.address]: inputs }, broadcast: false }, 'sign the PSBT');
      return hex.encode(base64.decode(r.psbt as string));
    },
    async (message: string, protocol?: MessageProtocol) => {
      const r = await call('signMessage', { address: a.address, message, protocol: (protocol ?? (k.type === 'p2pkh' ? 'bip137' : 'bip322')) === 'bip137' ? 'ECDSA' : 'BIP322' }, 'sign the message');
      return r.signature as string;
    });
}

function tryAccount(address: string, publicKey: string, network: Network) {
  try {
    return account('wallet', address, publicKey, network);
  } catch {
    return undefined;
  }
}

// ——— Unisat ———

/** `window.unisat` as Unisat documents it (the methods the market needs). */
export interface UnisatProvider {
  requestAccounts(): Promise<string[]>;
  getPublicKey(): Promise<string>;
  signPsbt(psbtHex: string, options?: { autoFinalized?: boolean; toSignInputs?: Array<{ index: number; address?: string; publicKey?: string; sighashTypes?: number[]; disableTweakSigner?: boolean }> }): Promise<string>;
  signMessage(message: string, type?: 'ecdsa' | 'bip322-simple'): Promise<string>;
}

export async function fromUnisat(unisat: UnisatProvider, o: BrowserWalletOptions = {}): Promise<Wallet> {
  const network = o.network ?? 'mainnet';
  const wrap = async <T>(p: () => Promise<T>, what: string) => {
    try {
      return await p();
    } catch (e) {
      throw refused('Unisat', what, e instanceof Error ? e.message : e);
    }
  };
  const [address] = await wrap(() => unisat.requestAccounts(), 'share its account');
  if (!address) throw refused('Unisat', 'share its account');
  const k = account('Unisat', address, await wrap(() => unisat.getPublicKey(), 'share its public key'), network);
  return keyWallet(k, address, network,
    async (psbtHex: string, inputs: number[], sighash: Sighash) => {
      const tx = preparePsbt(psbtHex, inputs, sighash, k);
      const byte = sighashByte(sighash, k.type);
      // autoFinalized defaults to true in Unisat: a finalized input would lose the signature data the market reads.
      const toSignInputs = inputs.map((index) => ({ index, address, sighashTypes: [byte] }));
      return wrap(() => unisat.signPsbt(hex.encode(tx.toPSBT()), { autoFinalized: false, toSignInputs }), 'sign the PSBT');
    },
    async (message: string, protocol?: MessageProtocol) =>
      wrap(() => unisat.signMessage(message, (protocol ?? (k.type === 'p2pkh' ? 'bip137' : 'bip322')) === 'bip137' ? 'ecdsa' : 'bip322-simple'), 'sign the message'));
}

// ——— Leather ———

/** `window.LeatherProvider` as Leather documents it: `request(method, params)` → `{result}` (JSON-RPC). */
export interface LeatherProvider {
  request(method: string, params?: unknown): Promise<{ result?: any; error?: { code?: number; message?: string } }>;
}

export async function fromLeather(leather: LeatherProvider, o: BrowserWalletOptions = {}): Promise<Wallet> {
  const network = o.network ?? 'mainnet';
  const call = async (method: string, p: unknown, what: string) => {
    let r: Awaited<ReturnType<LeatherProvider['request']>>;
    try {
      r = await leather.request(method, p);
    } catch (e) {
      // Leather rejects the promise with the JSON-RPC error object on a refusal.
      throw refused('Leather', what, (e as { error?: unknown })?.error ?? (e instanceof Error ? e.message : e));
    }
    if (r.error || r.result === undefined) throw refused('Leather', what, r.error);
    return r.result;
  };
  const got = await call('getAddresses', undefined, 'share its addresses');
  const btc = (got.addresses as Array<{ symbol?: string; type?: string; address: string; publicKey: string }>).filter((a) => (a.symbol ?? 'BTC') === 'BTC');
  const want = o.type ?? 'p2tr';
  const pick = btc.find((a) => a.type === want) ?? btc.find((a) => a.type === 'p2wpkh');
  if (!pick) throw new MarketError('network_mismatch', `Leather: no ${want} address`, null, { field: 'address', network });
  const k = account('Leather', pick.address, pick.publicKey, network);
  const leatherNetwork = network === 'mainnet' ? 'mainnet' : network === 'regtest' ? 'regtest' : 'testnet';
  return keyWallet(k, pick.address, network,
    async (psbtHex: string, inputs: number[], sighash: Sighash) => {
      const tx = preparePsbt(psbtHex, inputs, sighash, k);
      const r = await call('signPsbt', { hex: hex.encode(tx.toPSBT()), signAtIndex: inputs, allowedSighash: [sighashByte(sighash, k.type)], network: leatherNetwork, broadcast: false }, 'sign the PSBT');
      return r.hex as string;
    },
    async (message: string, protocol?: MessageProtocol) => {
      if (protocol === 'bip137') throw new MarketError('invalid_request', 'protocol: Leather signs messages with BIP-322 only', null, { field: 'protocol' });
      const r = await call('signMessage', { message, paymentType: k.type === 'p2tr' ? 'p2tr' : 'p2wpkh', network: leatherNetwork }, 'sign the message');
      return r.signature as string;
    });
}
