import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ATTACH_GAS_PARAMS, attachFeeRaw, averagePerBlock, gasFeeRaw } from '../../src/counterparty/attach-fee.js';

// int(calculate_fee(x, 3, 15, 1, 1) * UNIT) computed with Core's gas.py (Python Decimal + libm exp).
const CORE: Record<number, bigint> = {
  0: 0n, 3: 0n, 4: 669285n, 5: 1798620n, 6: 4742587n, 7: 11920292n, 8: 26894142n, 9: 50000000n,
  10: 73105857n, 11: 88079707n, 12: 95257412n, 13: 98201379n, 14: 99330714n, 15: 99752737n,
  16: 101000000n, 17: 102828427n, 18: 105196152n, 19: 108000000n, 20: 111180339n, 25: 131622776n,
  31: 164000000n, 39: 217575507n, 100: 883661278n, 1000: 31013939008n, 12345: 1369229773615n,
};

void test('gas fee matches Core for every regime', () => {
  for (const [x, fee] of Object.entries(CORE)) assert.equal(gasFeeRaw(Number(x)), fee, `x=${x}`);
});

void test('fee is 0 up to 3 per block, ~0.5 XCP at 9, 1 XCP + (x-15)^1.5/100 above 15', () => {
  assert.equal(gasFeeRaw(3), 0n);
  assert.equal(gasFeeRaw(9), 50_000_000n);
  assert.ok(gasFeeRaw(15) < 100_000_000n && gasFeeRaw(16) > 100_000_000n);
});

void test('x is the integer average over the period, 0 before the first full period', () => {
  assert.equal(averagePerBlock(4 * 2016, 2015), 0);
  assert.equal(averagePerBlock(4 * 2016, 2016), 4);
  assert.equal(averagePerBlock(4 * 2016 - 1, 5000), 3);
  assert.equal(attachFeeRaw(9 * 2016, 3000), 50_000_000n);
  const short = { ...ATTACH_GAS_PARAMS, periodBlocks: 10 };
  assert.equal(attachFeeRaw(90, 10, short), 50_000_000n);
  assert.equal(attachFeeRaw(90, 9, short), 0n);
});

void test('bad parameters are refused', () => {
  assert.throws(() => gasFeeRaw(-1));
  assert.throws(() => gasFeeRaw(5, { ...ATTACH_GAS_PARAMS, upperThreshold: 3 }));
});
