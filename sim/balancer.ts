/**
 * The traders' way in: a fetch (the client's FetchLike) that sends each request to one of the
 * live instances, chosen by the trader's own seeded stream, as a load balancer spreads a
 * market's users. A refused connection never reached an instance, so it goes to another; any
 * other failure is the client's to handle (an uncertain outcome it must not sign again for).
 * Every answer is recorded and checked on the spot: an error is the envelope with a known code.
 */
import type { FetchLike } from '../client/src/index.js';
import type { History, Violation } from './history.js';
import type { Rng } from './rng.js';
import type { World } from './world.js';
import { ERROR_STATUS } from '../src/http/errors.js';
import { leakInPublicAnswer } from './invariants.js';

const refused = (e: unknown) => {
  const c = (e as { cause?: { code?: string } })?.cause?.code;
  return c === 'ECONNREFUSED';
};

export function balancedFetch(o: { world: World; rng: Rng; actor: string; ip: string; history: History; violate: (v: Violation) => void }): FetchLike {
  return async (input, init) => {
    const u = new URL(input);
    for (let attempt = 0; ; attempt++) {
      const live = o.world.live();
      if (!live.length) {
        await new Promise((r) => setTimeout(r, 500));
        if (attempt > 120) throw new Error('no market instance came back within a minute');
        continue;
      }
      const m = o.rng.pick(live);
      const instance = o.world.markets.indexOf(m);
      const target = `${m.url}${u.pathname}${u.search}`;
      let res: Response;
      try {
        res = await fetch(target, { method: init.method, headers: { ...init.headers, 'x-forwarded-for': o.ip }, ...(init.body === undefined ? {} : { body: init.body }), ...(init.signal ? { signal: init.signal } : {}) });
      } catch (e) {
        if (refused(e) && attempt < 20) continue;
        throw e;
      }
      const isStream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
      const text = isStream ? undefined : await res.text();
      let code: string | undefined;
      if (res.status >= 400 && text !== undefined && init.method !== 'HEAD') {
        try {
          const body = JSON.parse(text) as { error?: unknown; code?: unknown };
          code = typeof body.code === 'string' ? body.code : undefined;
          if (typeof body.error !== 'string' || !code || !(code in ERROR_STATUS)) {
            o.violate({ name: 'envelope', message: `${init.method} ${u.pathname} answered ${res.status} outside the envelope: ${text.slice(0, 200)}` });
          }
        } catch {
          o.violate({ name: 'envelope', message: `${init.method} ${u.pathname} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}` });
        }
      }
      const session = Object.keys(init.headers).some((h) => h.toLowerCase() === 'x-session-token');
      const leak = !session && text !== undefined ? leakInPublicAnswer(text) : undefined;
      if (leak) o.violate({ name: 'no_leak', message: `the public answer to ${init.method} ${u.pathname} holds ${leak}` });
      if (res.status === 500) o.violate({ name: 'no_5xx', message: `${init.method} ${u.pathname} answered 500 (${code ?? '?'}) on instance ${instance}: ${text?.slice(0, 300)}` });
      o.history.add({ kind: 'answer', actor: o.actor, method: init.method, path: u.pathname, status: res.status, ...(code ? { code } : {}), instance });
      return {
        status: res.status,
        headers: res.headers,
        text: async () => text ?? (await res.text()),
        body: isStream ? res.body : null,
      };
    }
  };
}
