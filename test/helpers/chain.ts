import type { Chain } from '../../src/chain/ports.js';
import { UpstreamUnavailable } from '../../src/chain/ports.js';

/** A chain whose backends are down: every call fails as an unreachable upstream would. */
export function unreachableChain(): { chain: Chain } {
  const down = (backend: 'bitcoin' | 'counterparty') =>
    new Proxy({}, {
      get: (_t, prop) => (prop === 'kind' ? (backend === 'bitcoin' ? 'bitcoin-core' : 'counterparty-core') : async () => {
        throw new UpstreamUnavailable(backend, `${backend} backend unreachable`);
      }),
    });
  return {
    chain: {
      bitcoin: down('bitcoin') as Chain['bitcoin'],
      counterparty: down('counterparty') as Chain['counterparty'],
      utxos: down('counterparty') as Chain['utxos'],
    },
  };
}

/**
 * A read-only chain answering from a table, counting calls and the most calls
 * in flight at once. For route tests of reads (freshness, status batching);
 * anything that validates or broadcasts uses the devnet.
 */
export function tableChain(data: { confirmations?: Record<string, number>; fees?: { fastest: number; half_hour: number; hour: number; economy: number; minimum: number }; xcpFee?: string; delayMs?: number }) {
  const stats = { calls: 0, inFlight: 0, maxInFlight: 0 };
  const track = async <T>(fn: () => T): Promise<T> => {
    stats.calls++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    try {
      await new Promise((r) => setTimeout(r, data.delayMs ?? 0));
      return fn();
    } finally {
      stats.inFlight--;
    }
  };
  const base = unreachableChain().chain;
  const chain: Chain = {
    bitcoin: new Proxy(base.bitcoin, {
      get: (target, prop) => {
        if (prop === 'getTransaction')
          return (txid: string) =>
            track(() => {
              const c = data.confirmations?.[txid];
              return c === undefined ? null : { txid, hex: '', confirmations: c, block_hash: c ? 'ab'.repeat(32) : null, block_height: c ? 100 - c + 1 : null };
            });
        if (prop === 'estimateFees') return () => track(() => data.fees ?? { fastest: 20, half_hour: 12, hour: 8, economy: 3, minimum: 1 });
        return (target as any)[prop];
      },
    }),
    counterparty: new Proxy(base.counterparty, {
      get: (target, prop) => (prop === 'estimateAttachXcpFee' ? () => track(() => data.xcpFee ?? '0') : (target as any)[prop]),
    }),
    utxos: base.utxos,
  };
  return { chain, stats };
}

/**
 * For `testApp`/`openMarket`'s `wrapChain`: the chain with some of its Bitcoin port's methods
 * replaced (each given the real port), every other method the real one's.
 */
export function interceptBitcoin(chain: Chain, overrides: Partial<Record<keyof Chain['bitcoin'], (real: Chain['bitcoin']) => (...args: any[]) => unknown>>): Chain {
  const bitcoin = new Proxy(chain.bitcoin, {
    get(target, prop) {
      const make = overrides[prop as keyof Chain['bitcoin']];
      if (make) return make(target);
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { ...chain, bitcoin };
}

/**
 * Fault injection for `testApp`/`openMarket`'s `wrapChain`: the market's Bitcoin port
 * broadcasts through the real one except for the next `n` broadcasts armed with `failNext`,
 * which throw as a dropped connection would (UpstreamUnavailable, the adapters' network error).
 * `when: 'before'` loses the request (the node never sees the transaction); `'after'` loses
 * the reply (the node accepted it). Both leave the market not knowing the outcome.
 */
export function broadcastFaults() {
  let armed: { n: number; when: 'before' | 'after' } = { n: 0, when: 'before' };
  let failed = 0;
  const wrap = (chain: Chain): Chain =>
    interceptBitcoin(chain, {
      broadcast: (real) => async (hexTx: string) => {
        if (armed.n > 0) {
          armed = { ...armed, n: armed.n - 1 };
          failed++;
          if (armed.when === 'after') await real.broadcast(hexTx);
          throw new UpstreamUnavailable('bitcoin', 'bitcoin RPC: socket hang up (ECONNRESET)');
        }
        return real.broadcast(hexTx);
      },
    });
  return {
    wrap,
    failNext(n = 1, when: 'before' | 'after' = 'before') {
      armed = { n, when };
    },
    /** How many broadcasts have failed so far. */
    get failed() {
      return failed;
    },
  };
}
