/**
 * Bitcoin Core's own `hashblock` notices (BITCOIN_ZMQ_HASHBLOCK) on a real node started with
 * `-zmqpubhashblock`: the market on CHAIN=bitcoin-core with its jobs running, the timed tip check
 * a minute away and the long poll ten: a block Core mines reaches the indexer within a second,
 * brought by the notice alone (which also proves the hash's byte order is Core's).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startJobs, type Jobs } from '../../src/jobs.js';
import { BITCOIND, SKIP_REASON, freePort, startBitcoind, type Bitcoind } from './bitcoind.js';
import { openCoreMarket, type CoreMarket } from './core-market.js';
import { makeWallet } from '../helpers/wallets.js';

if (!BITCOIND) {
  it("Bitcoin Core's ZMQ hashblock notices", { skip: SKIP_REASON }, () => {});
} else {
  let core: Bitcoind;
  let m: CoreMarket;
  let jobs: Jobs;

  before(async () => {
    const endpoint = `tcp://127.0.0.1:${await freePort()}`;
    core = await startBitcoind([`-zmqpubhashblock=${endpoint}`]);
    m = await openCoreMarket(core, { BITCOIN_ZMQ_HASHBLOCK: endpoint, TIP_CHECK_INTERVAL_MS: '60000', INDEXER_INTERVAL_MS: '600000' });
    jobs = await startJobs(m.ctx);
  });
  after(async () => {
    await jobs?.stop();
    await m?.close();
    await core?.stop();
  });

  it('a block Core mines reaches the indexer within a second, on its notice alone', async () => {
    const to = makeWallet('p2wpkh', 'rc-zmq-miner').address;
    const indexed = async (hash: string, ms: number) => {
      const t0 = Date.now();
      while ((await m.ctx.indexer.cursor())?.hash !== hash) {
        if (Date.now() - t0 > ms) return false;
        await new Promise((r) => setTimeout(r, 10));
      }
      return true;
    };
    // A SUB socket hears only what is published after its subscription reached the node: the
    // first block may pass unheard (the timed check would bring it), so the rounds start once one is heard.
    let heard = false;
    for (let i = 0; i < 10 && !heard; i++) heard = await indexed((await core.rpc<string[]>('generatetoaddress', 1, to))[0]!, 2_000);
    assert.ok(heard, 'no block notice heard');
    for (let round = 0; round < 3; round++) {
      // Mined by the node itself: nothing but its notice tells the market.
      const [hash] = await core.rpc<string[]>('generatetoaddress', 1, to);
      const t0 = Date.now();
      while ((await m.ctx.indexer.cursor())?.hash !== hash) {
        assert.ok(Date.now() - t0 < 1_000, `round ${round}: block ${hash} not indexed within a second of Core mining it`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  });
}
