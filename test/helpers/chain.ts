import { UpstreamUnavailable, type Chain } from '../../src/chain/ports.js';

/** A chain whose backends are down: every call fails as an unreachable upstream would. */
export function unreachableChain(): { chain: Chain } {
  const down = (backend: 'bitcoin' | 'counterparty') =>
    new Proxy({}, {
      get: (_t, prop) => (prop === 'kind' ? (backend === 'bitcoin' ? 'bitcoin-core' : 'counterparty-core') : async () => {
        throw new UpstreamUnavailable(backend, `${backend} backend unreachable`);
      }),
    });
  return { chain: { bitcoin: down('bitcoin') as Chain['bitcoin'], counterparty: down('counterparty') as Chain['counterparty'] } };
}
