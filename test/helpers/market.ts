/**
 * The market on the devnet, through its front door: a test app whose chain is the in-process
 * devnet on the same store, sessions for real wallets, funded wallets, issued assets, PSBT
 * signing and a sync (recovery + indexer + cache flush).
 *
 *   const m = await openMarket();
 *   const seller = makeWallet('p2wpkh', 'seller');
 *   await m.fund(seller, 100_000);
 *   const asset = await m.issue(seller, '1');
 *   const token = await m.signIn(seller);
 *   const r = await m.call('POST', '/v1/listing-preflights', token, { seller: seller.address, … });
 *   await m.mine(); await m.sync();
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import type { Devnet } from '../../src/chain/devnet/index.js';
import type { Chain } from '../../src/chain/ports.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { testApp, type TestApp } from './app.js';
import { attachOutputScript } from '../../src/counterparty/attach-detach.js';
import { buildTx, coinOf, type Coin } from './devnet.js';
import { signInput, signMessageBip322, type TestWallet } from './wallets.js';

export interface Reply {
  status: number;
  body: Record<string, any>;
  headers: Record<string, unknown>;
}

export interface Market extends TestApp {
  devnet: Devnet;
  /** Signs in `wallet` (challenge + BIP-322) and returns its session token. */
  signIn(wallet: TestWallet): Promise<string>;
  /** A JSON request through app.inject; `token` may be null for anonymous calls. */
  call(method: 'GET' | 'POST' | 'DELETE', url: string, token: string | null, payload?: unknown): Promise<Reply>;
  /** A confirmed coin of `sats` paid to the wallet. */
  fund(wallet: TestWallet, sats: number): Promise<Coin>;
  /** Issues a fresh (numeric) indivisible asset of `quantityRaw` to the wallet; returns its id. */
  issue(wallet: TestWallet, quantityRaw?: string): Promise<string>;
  credit(wallet: TestWallet, asset: string, quantityRaw: string): Promise<void>;
  mine(blocks?: number): Promise<string[]>;
  /** Recovery, indexer and cache flush: the market catches up with the chain now. */
  sync(): Promise<void>;
  /**
   * Attaches `quantityRaw` of `asset` from the wallet's address balance to a new output of the
   * wallet (330 sats; 546 for P2PKH), outside the market (a plain signed attach, mined). Returns the outpoint.
   */
  attachDirect(wallet: TestWallet, asset: string, quantityRaw?: string): Promise<{ txid: string; vout: number }>;
}

let ipCounter = 0;
const freshIp = () => `10.77.${Math.floor(++ipCounter / 250) % 250}.${ipCounter % 250}`;

/**
 * The market on a fresh devnet. `env` adds config (e.g. DEVNET_ATTACH_FEE_RAW); `wrapChain`
 * puts a wrapper between the market and the devnet's ports (see testApp).
 */
export async function openMarket(env: Record<string, string> = {}, opts: { wrapChain?: (chain: Chain) => Chain } = {}): Promise<Market> {
  const t = await testApp({ env: { DEVNET_ATTACH_FEE_RAW: '0', ...env }, ...(opts.wrapChain ? { wrapChain: opts.wrapChain } : {}) });
  if (!t.ctx.devnet) throw new Error('the test app has no devnet (CHAIN must be devnet)');
  const devnet = t.ctx.devnet as unknown as Devnet;
  const market: Market = {
    ...t,
    devnet,
    ...frontDoor(t),
    async fund(wallet, sats) {
      const { txid, vout } = await devnet.faucet(wallet.address, sats);
      return coinOf(devnet, txid, vout);
    },
    async issue(wallet, quantityRaw = '1') {
      return (await devnet.issueAsset({ issuer: wallet.address, quantity_raw: quantityRaw, divisible: false })).asset;
    },
    credit: (wallet, asset, quantityRaw) => devnet.credit(wallet.address, asset, quantityRaw),
    mine: (blocks = 1) => devnet.mine(blocks),
    sync: () => t.ctx.sync(),
    attachDirect: (wallet, asset, quantityRaw = '1') =>
      attachOutside({ fund: (w, sats) => market.fund(w, sats), broadcast: (h) => devnet.bitcoin.broadcast(h), mine: () => devnet.mine(1) }, wallet, asset, quantityRaw),
  };
  // The indexer starts at the tip it first sees: sync once so every later block is followed.
  await market.sync();
  return market;
}

/** A plain signed attach outside the market (one unit to a new 330-sat output; 546 for P2PKH), mined; returns the outpoint. */
export async function attachOutside(
  chain: { fund(w: TestWallet, sats: number): Promise<Coin>; broadcast(hexTx: string): Promise<string>; mine(): Promise<unknown> },
  wallet: TestWallet, asset: string, quantityRaw = '1',
): Promise<{ txid: string; vout: number }> {
  const coin = await chain.fund(wallet, 20_000);
  const unit = wallet.family === 'p2pkh' ? 546n : 330n; // P2PKH dust is 546
  const hexTx = buildTx([{ wallet, coin }], (input0) => [
    { script: wallet.script, amount: unit },
    { script: attachOutputScript({ input0Txid: input0, asset, quantity: BigInt(quantityRaw), destinationVout: 0 }), amount: 0n },
    { script: wallet.script, amount: coin.amount - unit - 2_000n },
  ]);
  const attached = await chain.broadcast(hexTx);
  await chain.mine();
  return { txid: attached, vout: 0 };
}

/** Requests through the app's front door: `call` (JSON) and `signIn` (challenge + BIP-322 with the wallet's key). */
export function frontDoor(t: TestApp): Pick<Market, 'call' | 'signIn'> {
  const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, token: string | null, payload?: unknown): Promise<Reply> => {
    const r = await t.app.inject({
      method,
      url,
      headers: token ? { 'x-session-token': token } : {},
      remoteAddress: '10.60.0.1',
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: r.statusCode, body: r.body ? (JSON.parse(r.body) as Record<string, any>) : {}, headers: r.headers };
  };
  return {
    call,
    async signIn(wallet) {
      const ip = freshIp();
      const c = await t.app.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { address: wallet.address }, remoteAddress: ip });
      if (c.statusCode !== 200) throw new Error(`challenge: ${c.body}`);
      const { message, issued_at } = JSON.parse(c.body).result as { message: string; issued_at: number };
      const v = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/verify',
        payload: { address: wallet.address, issued_at, signature: signMessageBip322(wallet, message) },
        remoteAddress: ip,
      });
      if (v.statusCode !== 200) throw new Error(`verify: ${v.body}`);
      return JSON.parse(v.body).result.token as string;
    },
  };
}

/**
 * Signs the given inputs of a PSBT (hex) with `wallet` and `sighash`; P2TR inputs get the
 * wallet's internal key first when the template does not carry it (a wallet adds it itself).
 */
export function signPsbt(psbtHex: string, wallet: TestWallet, inputs: number[], sighash: number): string {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  for (const i of inputs) {
    if (wallet.family === 'p2tr' && !tx.getInput(i).tapInternalKey) tx.updateInput(i, { tapInternalKey: wallet.xOnly }, true);
    signInput(tx, i, wallet, sighash);
  }
  return hex.encode(tx.toPSBT());
}

/** Edits the unsigned transaction of a PSBT (for tamper tests): `edit` gets the scure Transaction. */
export function editPsbt(psbtHex: string, edit: (tx: Transaction) => void): string {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  edit(tx);
  return hex.encode(tx.toPSBT());
}

/** The final txid of a fully signed PSBT. */
export function finalTxid(psbtHex: string): string {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  tx.finalize();
  return tx.id;
}
