/**
 * Fee estimates from `estimatesmartfee` and `getmempoolinfo`. Bitcoin Core
 * answers in BTC/kvB; the market quotes sat/vB. 1 BTC/kvB = 1e8 sat / 1000 vB,
 * so sat/vB = BTC/kvB × 1e5; we round through integer sat/kvB so the value keeps
 * Core's own resolution (0.001 sat/vB) without float noise.
 */
import type { FeeEstimates } from '../ports.js';
import type { EstimateSmartFeeReply, GetMempoolInfoReply } from './rpc-types.js';

/** Confirmation targets (blocks) behind each named rate. */
export interface FeeTargets {
  fastest: number;
  half_hour: number;
  hour: number;
  economy: number;
}

/** ~10 min, ~30 min, ~1 h, ~1 day. Core's smallest target is 1 (treated as 2 internally). */
export const DEFAULT_FEE_TARGETS: FeeTargets = { fastest: 1, half_hour: 3, hour: 6, economy: 144 };

export const btcPerKvbToSatPerVb = (btcPerKvb: number): number => Math.round(btcPerKvb * 1e8) / 1000;

/** The rate an estimate reply gives, or null when Core has no data (`errors`). */
export function estimateRate(reply: EstimateSmartFeeReply | null | undefined): number | null {
  if (!reply || typeof reply.feerate !== 'number' || !(reply.feerate > 0)) return null;
  return btcPerKvbToSatPerVb(reply.feerate);
}

/** The floor the node relays at now: the higher of the rolling mempool minimum and the relay fee. */
export function minimumRate(info: GetMempoolInfoReply): number {
  return btcPerKvbToSatPerVb(Math.max(info.mempoolminfee ?? 0, info.minrelaytxfee ?? 0));
}

/**
 * Named rates, never below the node's floor and never decreasing with urgency.
 * A target without data (fresh node, regtest) takes the next slower rate, and
 * the slowest falls back to the floor: quoting below what the node relays
 * would only produce `min relay fee not met`.
 */
export function feeEstimatesFrom(rates: Record<keyof FeeTargets, number | null>, minimum: number): FeeEstimates {
  const economy = Math.max(rates.economy ?? minimum, minimum);
  const hour = Math.max(rates.hour ?? economy, economy);
  const half_hour = Math.max(rates.half_hour ?? hour, hour);
  const fastest = Math.max(rates.fastest ?? half_hour, half_hour);
  return { fastest, half_hour, hour, economy, minimum };
}
