/**
 * The differential suite: every transaction shape the market builds and every contested case,
 * sent to a real Bitcoin Core (BITCOIND) and to the devnet following its chain, replies and
 * mempools compared (differential-harness.ts). Each case is a test named for what it sends and
 * fails on any difference: the devnet must agree with Core on every case, with no list of known
 * exceptions. The last test prints the counts and writes them to CORE_DIFF_REPORT (when set).
 */
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { BITCOIND, SKIP_REASON } from './bitcoind.js';
import { cases, useDifferential } from './differential-cases.js';
import { Differential } from './differential-harness.js';

let d: Differential;
const results = new Map<string, string[]>();

if (!BITCOIND) {
  test('real Bitcoin Core differential suite', { skip: SKIP_REASON }, () => {});
} else {
  before(async () => {
    d = await Differential.start();
    useDifferential(d);
  });
  after(() => d?.stop());

  for (const c of cases) {
    test(c.name, async (t: TestContext) => {
      await d.clean();
      await c.run();
      const diffs = d.steps.flatMap((s) => s.differences.map((x) => `${s.label} (${s.method}): ${x}`));
      results.set(c.name, diffs);
      for (const s of d.steps) t.diagnostic(`${s.label}: core ${JSON.stringify(s.core)} | devnet ${JSON.stringify(s.devnet)}`);
      assert.deepEqual(diffs, [], `the devnet disagrees with ${d.core.version}`);
    });
  }

  test('differential summary', (t: TestContext) => {
    const agree = [...results].filter(([, x]) => x.length === 0).map(([n]) => n);
    const disagree = [...results].filter(([, x]) => x.length > 0);
    const report = { core: d.core.version, cases: results.size, agreements: agree.length, disagreements: disagree.length, details: Object.fromEntries(disagree) };
    t.diagnostic(`differential vs ${d.core.version}: ${results.size} cases, ${agree.length} agree, ${disagree.length} disagree`);
    for (const [n, x] of disagree) t.diagnostic(`disagrees: ${n}: ${x.join('; ')}`);
    if (process.env.CORE_DIFF_REPORT) fs.writeFileSync(process.env.CORE_DIFF_REPORT, JSON.stringify(report, null, 2));
    assert.equal(results.size, cases.length, 'every case ran');
    assert.equal(disagree.length, 0, `0 disagreements with ${d.core.version}`);
  });
}

