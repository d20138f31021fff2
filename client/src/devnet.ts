/**
 * The devnet's sandbox controls, for tests and bots on a market started with `npm start`
 * (`CHAIN=devnet`): coins from the faucet, assets issued and credited, blocks mined, and the
 * market brought up to date with the chain at once (instead of at its next indexer run). These
 * routes exist only on the devnet: on a real market every call here is `not_found`.
 *
 *   await market.devnet.faucet(wallet.address, 100_000);   // a confirmed coin
 *   const { asset } = await market.devnet.issue({ issuer: wallet.address, quantity_raw: '3' });
 *   await market.devnet.confirm();                          // mine a block, then sync
 */
import type { Transport } from './transport.js';

export class Devnet {
  constructor(private readonly http: Transport) {}

  /** A confirmed coin of `amount_sats` paid to `address` (mined in a block of its own). */
  async faucet(address: string, amount_sats: number) {
    return (await this.http.call('POST /devnet/faucet', { body: { address, amount_sats } })).result;
  }

  /** Mines `blocks` (default 1) with the mempool in fee order. */
  async mine(blocks = 1) {
    return (await this.http.call('POST /devnet/mine', { body: { blocks } })).result;
  }

  /** Issues a Counterparty asset to `issuer` (recorded with the next block: mine, or `confirm()`). */
  async issue(p: { issuer: string; quantity_raw: string; asset?: string; longname?: string; divisible?: boolean; description?: string }) {
    return (await this.http.call('POST /devnet/assets', { body: p })).result;
  }

  /** Credits an address-level balance (XCP for attach fees included); recorded with the next block. */
  async credit(address: string, asset: string, quantity_raw: string) {
    return (await this.http.call('POST /devnet/credit', { body: { address, asset, quantity_raw } })).result;
  }

  /** Recovery and the indexer run to the tip and public caches clear: the market now reflects the chain. */
  async sync() {
    return (await this.http.call('POST /devnet/sync', {})).result;
  }

  /** Mines `blocks` (default 1), then syncs: what a test or bot does after each write it waits on. */
  async confirm(blocks = 1) {
    await this.mine(blocks);
    return this.sync();
  }

  /** An address's coins, mempool included. */
  async utxos(address: string) {
    return (await this.http.call('GET /devnet/addresses/{address}/utxos', { params: { address } })).result;
  }
}
