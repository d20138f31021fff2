/**
 * The attach XCP fee, after Core's `messages/gas.py`. With x = the average number of valid
 * attaches per block over the `period` blocks before the parsing block (integer division, and
 * 0 while the chain is shorter than one period):
 *   x ≤ a          → 0
 *   a < x ≤ b      → base / (1 + e^(−k·(x − (a + (b − a)/2))))   (a sigmoid centred at 9)
 *   x > b          → base + (x − b)^1.5 / 100
 * in whole XCP, then floored to raw units (8 decimals). Core's parameters for attach (id 101)
 * on mainnet, testnet and regtest: a = 3, b = 15, base = 1, k = 1, period = 2016 blocks.
 *
 * Core computes with Python Decimals around a libm `exp`; here the sigmoid uses `Math.exp` and
 * the tail is exact integer arithmetic (`isqrt`). For Core's parameters every value of x
 * matches Core to the satoshi (see test/counterparty/attach-fee.test.ts).
 */
import { UNIT } from './asset-names.js';

export interface GasParams {
  lowerThreshold: number;
  upperThreshold: number;
  baseFee: number;
  sigmoidK: number;
  /** Blocks averaged over (Core's `PERIOD_DURATION`). */
  periodBlocks: number;
}

export const ATTACH_GAS_PARAMS: Readonly<GasParams> = Object.freeze({
  lowerThreshold: 3,
  upperThreshold: 15,
  baseFee: 1,
  sigmoidK: 1,
  periodBlocks: 2016,
});

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  // Newton steps from the float guess; exact for any size.
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) break;
    x = y;
  }
  while (x * x > n) x -= 1n;
  while ((x + 1n) * (x + 1n) <= n) x += 1n;
  return x;
}

/** Raw XCP fee for an average of `x` attaches per block (Core's `calculate_fee` × UNIT, floored). */
export function gasFeeRaw(x: number, p: GasParams = ATTACH_GAS_PARAMS): bigint {
  const { lowerThreshold: a, upperThreshold: b, baseFee: base, sigmoidK: k } = p;
  if (!Number.isInteger(x) || x < 0) throw new Error(`gas: x must be a non-negative integer, got ${x}`);
  if (b <= a) throw new Error('gas: upper threshold must exceed lower threshold');
  if (x <= a) return 0n;
  if (x <= b) {
    const midpoint = (b - a) / 2 + a;
    return BigInt(Math.floor((base * Number(UNIT)) / (1 + Math.exp(-k * (x - midpoint)))));
  }
  // (x−b)^1.5 / 100 XCP = sqrt((x−b)^3) · 10^6 raw = isqrt((x−b)^3 · 10^12) raw, floored exactly.
  const n = BigInt(x - b);
  return BigInt(base) * UNIT + isqrt(n * n * n * 10n ** 12n);
}

/**
 * Core's `get_average_transactions`: the integer average over the window [blockIndex − period,
 * blockIndex), or 0 while blockIndex < period.
 */
export function averagePerBlock(countInWindow: number, blockIndex: number, p: GasParams = ATTACH_GAS_PARAMS): number {
  if (blockIndex < p.periodBlocks || countInWindow <= 0) return 0;
  return Math.floor(countInWindow / p.periodBlocks);
}

/**
 * The attach fee charged by a block at `blockIndex`, given how many valid attaches the blocks
 * in [blockIndex − period, blockIndex) counted.
 */
export function attachFeeRaw(countInWindow: number, blockIndex: number, p: GasParams = ATTACH_GAS_PARAMS): bigint {
  return gasFeeRaw(averagePerBlock(countInWindow, blockIndex, p), p);
}
