/**
 * webhook_mirror: what each trader's receiver got (sim/webhook-receiver.ts) is its owner log after
 * the endpoint's start, whole, in order and as the log says it, once the market settled:
 *
 * - every owner-log entry after the endpoint's `last_delivered_seq` at registration arrived (at
 *   least once), and nothing else did;
 * - first arrivals came in log order (a refused event holds back everything behind it);
 * - each arrival's `webhook-id` is its entry's `event_id`, and its payload names the entry's kind;
 * - the endpoint is still active (only the orphans of lost registrations are answered 410);
 * - every replay the market queued (202) arrived once more.
 */
import type { Violation } from './history.js';
import type { Trader } from './traders.js';
import type { Check } from './invariants.js';
import { readLog, type Entry } from './feed-checks.js';
import type { TraderWebhook } from './webhook-receiver.js';

const v = (message: string): Violation => ({ name: 'webhook_mirror', message });

/** How long the receivers may take to catch up with the settled log (a refused first attempt waits 5 s). */
const CATCH_UP_MS = 120_000;

/** The disagreements between a receiver's arrivals and the owner log after the endpoint's start. */
export function compareWebhooks(name: string, log: Entry[], hook: Pick<TraderWebhook, 'startSeq' | 'got'> & Partial<Pick<TraderWebhook, 'arrivals' | 'replays'>>): string[] {
  const out: string[] = [];
  for (const r of hook.replays ?? []) {
    if ((hook.arrivals?.get(`${r.id}:${r.seq}`) ?? 0) <= r.before) out.push(`${name}'s receiver never got the replay of seq ${r.seq} (${r.id}) the market queued`);
  }
  const bySeq = new Map(log.filter((e) => e.seq > hook.startSeq).map((e) => [e.seq, e]));
  const got = new Map(hook.got.map((g) => [g.seq, g]));
  const missing = [...bySeq.keys()].filter((seq) => !got.has(seq));
  if (missing.length) out.push(`${name}'s receiver never got ${missing.length} of its ${bySeq.size} owner events (seq ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''})`);
  const last = Math.max(hook.startSeq, ...log.map((e) => e.seq));
  for (const g of hook.got) {
    if (g.seq > last) continue; // after the log read: not judged
    const e = bySeq.get(g.seq);
    if (!e) out.push(`${name}'s receiver got seq ${g.seq} (${g.payload.data.kind}), which is not an owner event after the endpoint's start (${hook.startSeq})`);
    else if (g.id !== e.event_id || g.payload.data.event_id !== e.event_id || g.payload.data.kind !== e.kind) {
      out.push(`${name}'s receiver got seq ${g.seq} as ${g.id} (${g.payload.data.kind}); the log has ${e.event_id} (${e.kind})`);
    }
  }
  const firsts = hook.got.map((g) => g.seq);
  const back = firsts.findIndex((seq, i) => i > 0 && seq <= firsts[i - 1]!);
  if (back > 0) out.push(`${name}'s receiver got seq ${firsts[back]} after seq ${firsts[back - 1]}: not in log order`);
  return out;
}

export const webhookMirror: Check = {
  name: 'webhook_mirror',
  run: async (_w, traders: Trader[]) => {
    const out: Violation[] = [];
    const deadline = Date.now() + CATCH_UP_MS;
    for (const t of traders) {
      const hook = t.webhook;
      if (!hook) continue;
      await t.ensureSignedIn();
      const path = `/v1/address/${t.address}`;
      let found: string[] = [];
      // The log as it stands, until the receiver holds all of it or the time is up.
      for (;;) {
        const log = await readLog(async (after) => (await t.client.http.request<Entry[]>('GET', `${path}/events`, { query: { after, limit: 100 } })).body as any, hook.startSeq);
        found = compareWebhooks(t.name, log, hook);
        if (!found.length || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      out.push(...found.map(v));
      const ep = (await t.client.webhooks.list()).find((e) => e.id === hook.id);
      if (ep?.status !== 'active') out.push(v(`${t.name}'s endpoint ${hook.id} is ${ep ? `${ep.status} (${ep.disabled_reason})` : 'gone'}`));
    }
    return out;
  },
};
