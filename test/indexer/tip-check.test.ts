/**
 * The cheap tip check: a new block reaches the indexer within a tick of TIP_CHECK_INTERVAL_MS
 * while the long poll (INDEXER_INTERVAL_MS) is ten minutes away, and Counterparty Core's
 * readiness is followed: a block Counterparty has not parsed yet is not indexed, and is indexed
 * on the next check once Counterparty has it, with no new block to prompt it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';
import { startJobs } from '../../src/jobs.js';
import type { Chain } from '../../src/chain/ports.js';

const LONG_POLL = { INDEXER_INTERVAL_MS: '600000' };

async function until(what: string, ok: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function withJobs(t: TestApp, body: () => Promise<void>): Promise<void> {
  await t.ctx.indexer.run();
  const jobs = await startJobs(t.ctx);
  try {
    await body();
  } finally {
    await jobs.stop();
    await t.close();
  }
}

const tipHeight = async (t: TestApp) => (await t.ctx.chain.bitcoin.getTip()).height;
const cursorHeight = async (t: TestApp) => (await t.ctx.indexer.cursor())?.height ?? -1;

void test('tip check: a new block is indexed within a tick, not at the long poll', async () => {
  const t = await testApp({ env: { ...LONG_POLL, TIP_CHECK_INTERVAL_MS: '50' } });
  await withJobs(t, async () => {
    const before = await cursorHeight(t);
    await t.ctx.devnet!.mine(1);
    const t0 = Date.now();
    await until('the indexer to reach the new tip', async () => (await cursorHeight(t)) === before + 1, 3_000);
    assert.ok(Date.now() - t0 < 3_000);
    assert.equal(await cursorHeight(t), await tipHeight(t));
  });
});

void test('tip check off (TIP_CHECK_INTERVAL_MS=0): the block waits for the long poll', async () => {
  const t = await testApp({ env: { ...LONG_POLL, TIP_CHECK_INTERVAL_MS: '0' } });
  await withJobs(t, async () => {
    const before = await cursorHeight(t);
    await t.ctx.devnet!.mine(1);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(await cursorHeight(t), before);
  });
});

void test("tip check follows Counterparty's readiness: no block before Counterparty parsed it, then at once", async () => {
  let cpBehind = 0;
  const wrapChain = (chain: Chain): Chain => ({
    ...chain,
    counterparty: Object.assign(Object.create(chain.counterparty) as Chain['counterparty'], {
      getStatus: async () => {
        const s = await chain.counterparty.getStatus();
        return { ...s, counterparty_height: s.counterparty_height - cpBehind };
      },
      getBlockEvents: async (height: number, names?: Parameters<Chain['counterparty']['getBlockEvents']>[1]) => {
        const s = await chain.counterparty.getStatus();
        if (height > s.counterparty_height - cpBehind) throw new Error(`read events of block ${height} before Counterparty parsed it`);
        return chain.counterparty.getBlockEvents(height, names);
      },
    }),
  });
  const t = await testApp({ env: { ...LONG_POLL, TIP_CHECK_INTERVAL_MS: '50' }, wrapChain });
  await withJobs(t, async () => {
    const before = await cursorHeight(t);
    cpBehind = 1;
    await t.ctx.devnet!.mine(1);
    // Several ticks pass with the node's tip ahead of Counterparty's: the block stays unindexed.
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(await cursorHeight(t), before);
    // Counterparty parses it: the next check indexes it, with no new block.
    cpBehind = 0;
    await until('the indexer to follow Counterparty', async () => (await cursorHeight(t)) === before + 1, 3_000);
    assert.equal(await cursorHeight(t), await tipHeight(t));
  });
});
