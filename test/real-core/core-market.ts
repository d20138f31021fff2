/**
 * The market on a real Bitcoin Core: CHAIN=bitcoin-core with the production adapters, Bitcoin at
 * the node's JSON-RPC and Counterparty at the devnet's API v2 face over the ledger following
 * that node (src/chain/core-follow). The test helpers' `Market` shape, so the flow helpers of
 * the devnet tests run unchanged: funding is a real payment from the follower's miner key,
 * issuances ride a block the node mines, `mine` is the node's generatetoaddress.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import { Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { CoreFollower } from '../../src/chain/core-follow/follower.js';
import { serveFollowerFace } from '../../src/chain/core-follow/serve.js';
import type { Devnet } from '../../src/chain/devnet/index.js';
import type { Coin } from '../helpers/devnet.js';
import { testApp } from '../helpers/app.js';
import { attachOutside, frontDoor, type Market } from '../helpers/market.js';
import { testStore } from '../helpers/store.js';
import { makeWallet } from '../helpers/wallets.js';
import type { Bitcoind } from './bitcoind.js';

export interface CoreMarket extends Market {
  core: Bitcoind;
  follower: CoreFollower;
  /** An output of a transaction the node knows, as a spendable coin. */
  coinOf(txid: string, vout: number): Promise<Coin>;
}

export async function openCoreMarket(core: Bitcoind, env: Record<string, string> = {}): Promise<CoreMarket> {
  const followerStore = await testStore();
  const follower = await CoreFollower.open(followerStore.store, { rpcUrl: core.url, attachFeeRaw: '0' });
  const face = await serveFollowerFace(follower);
  const t = await testApp({
    env: {
      CHAIN: 'bitcoin-core', NETWORK: 'regtest', BITCOIN_RPC_URL: core.url, COUNTERPARTY_API_URL: face.url,
      MARKET_FEE_ADDRESS: makeWallet('p2wpkh', 'real-core-platform').address, ...env,
    },
  });
  const bitcoin = t.ctx.chain.bitcoin;
  const coinOf = async (txid: string, vout: number): Promise<Coin> => {
    const hex = await core.rpc<string>('getrawtransaction', txid, 0);
    const prevTx = hexToBytes(hex);
    return { txid, vout, amount: Transaction.fromRaw(prevTx, READ_TX_OPTS).getOutput(vout).amount!, prevTx };
  };
  const market: CoreMarket = {
    ...t,
    core,
    follower,
    coinOf,
    // Not the engine: a market on Core has no devnet. Helpers that broadcast through `devnet.bitcoin` reach the node.
    devnet: { bitcoin, counterparty: follower.chain.counterparty, chain: follower.chain } as unknown as Devnet,
    ...frontDoor(t),
    async fund(wallet, sats) {
      const { txid, vout } = await follower.faucet(wallet.address, sats);
      return coinOf(txid, vout);
    },
    async issue(wallet, quantityRaw = '1') {
      return (await follower.issueAsset({ issuer: wallet.address, quantity_raw: quantityRaw, divisible: false })).asset;
    },
    credit: (wallet, asset, quantityRaw) => follower.credit(wallet.address, asset, quantityRaw),
    mine: (blocks = 1) => follower.mine(blocks),
    sync: () => t.ctx.sync(),
    attachDirect: (wallet, asset, quantityRaw = '1') =>
      attachOutside({ fund: (w, sats) => market.fund(w, sats), broadcast: (h) => bitcoin.broadcast(h), mine: () => follower.mine(1) }, wallet, asset, quantityRaw),
    close: async () => {
      await t.close();
      await face.close();
      await follower.close();
      await followerStore.cleanup();
    },
  };
  await market.sync();
  return market;
}
