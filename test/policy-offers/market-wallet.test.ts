/**
 * One market, one market wallet. Simulated day 9107 (two instances on PostgreSQL, each with its
 * own DATA_DIR) found each instance signing the shared anchors with a key file of its own: every
 * sweep and accept that spent the other instance's anchors was refused by the node (invalid
 * Schnorr signature), and the refill, composed the same again, then failed every run on the
 * journal's one-settlement-per-txid key. Now the store records the first wallet's key and an
 * instance holding another key refuses (503 service_unavailable) before composing or signing;
 * and a refill the node refused is not journaled a second time.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TxRejected } from '../../src/chain/ports.js';
import { claimMarketWallet, MarketWallet } from '../../src/modules/policy-offers/market-wallet.js';
import { policyOfferUpkeep } from '../../src/modules/policy-offers/manifest.js';
import { ApiError } from '../../src/http/errors.js';
import { openMarket, type Market } from '../helpers/market.js';
import { interceptBitcoin } from '../helpers/chain.js';

const walletDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-wallet-other-'));

describe('the market wallet is the market\'s', () => {
  let m: Market;
  before(async () => {
    m = await openMarket({ ANCHOR_POOL_SIZE: '2' });
  });
  after(async () => m?.close());

  void it('an instance whose key file is not the one the store records refuses with 503 service_unavailable, and signs nothing', async () => {
    // Another instance of the same market opened its wallet first.
    const firstDir = walletDir();
    const first = MarketWallet.open(firstDir, m.ctx.config.NETWORK);
    await claimMarketWallet(m.ctx.store.db, first, firstDir);

    const cap = await m.call('GET', '/v1/policy-offers/capacity', null);
    assert.equal(cap.status, 503, JSON.stringify(cap.body));
    assert.equal(cap.body.code, 'service_unavailable', JSON.stringify(cap.body));
    assert.match(JSON.stringify(cap.body), /same market wallet key file/);

    await assert.rejects(policyOfferUpkeep(m.ctx), (e: unknown) => e instanceof ApiError && e.code === 'service_unavailable');
    const refills = await m.ctx.store.db.selectFrom('settlements').select('id').where('kind', '=', 'anchor_refill').execute();
    assert.deepEqual(refills, [], 'nothing journaled with the wrong key');
    const anchors = await m.ctx.store.db.selectFrom('market_anchors').select('outpoint').execute();
    assert.deepEqual(anchors, []);

    // The same key file (a shared MARKET_WALLET_DIR) is the market's: opening it again is accepted.
    const again = MarketWallet.open(firstDir, m.ctx.config.NETWORK);
    assert.equal(await claimMarketWallet(m.ctx.store.db, again, firstDir), again);
  });
});

describe('a refill the node refused', () => {
  let m: Market;
  let refuse = false;
  before(async () => {
    m = await openMarket(
      { ANCHOR_POOL_SIZE: '2' },
      {
        wrapChain: (chain) =>
          interceptBitcoin(chain, {
            broadcast: (real) => async (hexTx: string) => {
              if (refuse) throw new TxRejected('min relay fee not met, 100 < 200');
              return real.broadcast(hexTx);
            },
          }),
      },
    );
  });
  after(async () => m?.close());

  void it('is not journaled again in the same block (the run answers nothing to do); the next block composes a new one', async () => {
    refuse = true;
    const txid = await policyOfferUpkeep(m.ctx);
    assert.ok(txid, 'a refill was composed and journaled');
    const s = await m.ctx.journal.byTxid(m.ctx.store.db, txid);
    assert.equal(s?.state, 'rejected');

    // The same coins, anchors, fee rate and tip: the same transaction, refused before. Before
    // the change this run threw the store's unique-key error, every run.
    assert.equal(await policyOfferUpkeep(m.ctx), null);
    const refills = await m.ctx.store.db.selectFrom('settlements').select('txid').where('kind', '=', 'anchor_refill').execute();
    assert.deepEqual(refills.map((r) => r.txid), [txid]);

    // A block later the refill is a new transaction (locked to the new tip): the pool refills.
    refuse = false;
    await m.mine();
    await m.sync();
    const next = await policyOfferUpkeep(m.ctx);
    assert.ok(next && next !== txid, `a new refill: ${next}`);
    assert.equal((await m.ctx.journal.byTxid(m.ctx.store.db, next))?.state, 'relayed');
  });
});
