/**
 * Where `tip-to-book` runs (tip-to-book.ts): the chain under a `serve`-like market, with what the
 * bench needs of it besides the market's own chain ports (issuing, funding, mining).
 *
 * - `devnetWorld`: the market on the devnet, as `npm start` runs it.
 * - `coreWorld`: a real Bitcoin Core (with its ZMQ `hashblock` notices when asked) (`BITCOIND`, started as the real-Core lane starts it,
 *   test/real-core/bitcoind.ts) under the market on CHAIN=bitcoin-core with the production
 *   adapters; Counterparty is the devnet ledger following that node (src/chain/core-follow), served
 *   on its API v2 face. The timed block is Core's own `generatetoaddress`: nothing tells the
 *   market about it but its tip check, and the ledger parses it when the market's indexer first
 *   asks Counterparty after it (Counterparty Core too has parsed a block before it says so).
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import { Transaction } from '@scure/btc-signer';
import type { Context } from '../src/context.js';
import type { Devnet } from '../src/chain/devnet/devnet.js';
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import { CoreFollower } from '../src/chain/core-follow/follower.js';
import { serveFollowerFace } from '../src/chain/core-follow/serve.js';
import type { Coin } from '../test/helpers/devnet.js';
import { testStore } from '../test/helpers/store.js';
import { makeWallet } from '../test/helpers/wallets.js';
import { BITCOIND, freePort, startBitcoind } from '../test/real-core/bitcoind.js';
import { ownMarket } from './own-market.js';

export interface TipWorld {
  ctx: Context;
  api: string;
  /** A fresh one-unit asset issued to `w` (in a block). */
  issue(w: { address: string }): Promise<string>;
  /** A confirmed coin of `sats` paid to `address`. */
  fund(address: string, sats: number): Promise<Coin>;
  /** One block, mempool included, on the node; returns as soon as the node has it. */
  mineBlock(): Promise<void>;
  /** One block, and the Counterparty side has parsed it (setup). */
  mineAndFollow(): Promise<void>;
  close(): Promise<void>;
}

const coinFrom = (hex: string, txid: string, vout: number): Coin => {
  const prevTx = hexToBytes(hex);
  return { txid, vout, amount: Transaction.fromRaw(prevTx, READ_TX_OPTS).getOutput(vout).amount!, prevTx };
};

export async function devnetWorld(env: Record<string, string>): Promise<TipWorld> {
  const market = await ownMarket(env);
  const devnet = market.ctx.devnet as unknown as Devnet;
  return {
    ctx: market.ctx,
    api: market.api,
    issue: async (w) => (await devnet.issueAsset({ issuer: w.address, quantity_raw: '1', divisible: false })).asset,
    fund: async (address, sats) => {
      const f = await devnet.faucet(address, sats);
      return coinFrom(devnet.rpc.getrawtransaction(f.txid, false) as string, f.txid, f.vout);
    },
    mineBlock: async () => void (await devnet.mine(1)),
    mineAndFollow: async () => void (await devnet.mine(1)),
    close: () => market.close(),
  };
}

/** Whether `coreWorld` can run, and why not. */
export const coreWorldSkipped = (): string | null => (BITCOIND ? null : 'set BITCOIND to a bitcoind binary (the real-Core lane, docs/real-core.md)');

/** The market on a real Core; `zmq`: the node publishes `hashblock` and the market subscribes (BITCOIN_ZMQ_HASHBLOCK). */
export async function coreWorld(env: Record<string, string>, zmq = false): Promise<TipWorld> {
  const zmqEndpoint = zmq ? `tcp://127.0.0.1:${await freePort()}` : null;
  const core = await startBitcoind(zmqEndpoint ? [`-zmqpubhashblock=${zmqEndpoint}`] : []);
  const followerStore = await testStore();
  const follower = await CoreFollower.open(followerStore.store, { rpcUrl: core.url, attachFeeRaw: '0' });
  const face = await serveFollowerFace(follower);
  const market = await ownMarket({
    ...env,
    CHAIN: 'bitcoin-core',
    NETWORK: 'regtest',
    BITCOIN_RPC_URL: core.url,
    COUNTERPARTY_API_URL: face.url,
    MARKET_FEE_ADDRESS: makeWallet('p2wpkh', 'tip-core-platform').address,
    ...(zmqEndpoint ? { BITCOIN_ZMQ_HASHBLOCK: zmqEndpoint } : {}),
  });
  const miner = follower.devnet.miner.address;
  return {
    ctx: market.ctx,
    api: market.api,
    issue: async (w) => (await follower.issueAsset({ issuer: w.address, quantity_raw: '1', divisible: false })).asset,
    fund: async (address, sats) => {
      const f = await follower.faucet(address, sats);
      return coinFrom(await core.rpc<string>('getrawtransaction', f.txid, 0), f.txid, f.vout);
    },
    mineBlock: async () => void (await core.rpc('generatetoaddress', 1, miner)),
    mineAndFollow: async () => void (await follower.mine(1)),
    close: async () => {
      await market.close();
      await face.close();
      await follower.close();
      await followerStore.cleanup();
      await core.stop();
    },
  };
}
