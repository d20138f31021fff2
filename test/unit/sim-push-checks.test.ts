/**
 * The simulator's webhook invariant (sim/webhook-checks.ts) on arrivals written by hand: a
 * receiver that got every owner event after its endpoint's start, in order, agrees with the log;
 * each way a dispatcher could fail its receiver (an event lost, one sent out of order, one from
 * before the start, one under another id) makes it disagree. The same for a viewer of the public
 * stream (sim/viewers.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareWebhooks } from '../../sim/webhook-checks.js';
import { compareStream } from '../../sim/viewers.js';

const entry = (seq: number, kind = 'listing_filled') => ({ seq, event_id: `ev_${seq}`, kind });
const arrival = (seq: number, kind = 'listing_filled', id = `ev_${seq}`) => ({ id, seq, payload: { type: kind, timestamp: '', seq, address: 'a', data: { event_id: id, kind, at: 0 } } });
const log = [entry(3), entry(7), entry(9, 'offer_filled'), entry(12)];

void test('webhook_mirror: every event after the start, in order, as the log says it', () => {
  assert.deepEqual(compareWebhooks('t1', log, { startSeq: 5, got: [arrival(7), arrival(9, 'offer_filled'), arrival(12)] }), []);
  // Arrivals after the log was read are not judged yet.
  assert.deepEqual(compareWebhooks('t1', log, { startSeq: 5, got: [arrival(7), arrival(9, 'offer_filled'), arrival(12), arrival(14)] }), []);
});

void test('webhook_mirror: a lost, early, reordered or renamed event is a disagreement', () => {
  assert.match(compareWebhooks('t1', log, { startSeq: 5, got: [arrival(7), arrival(12)] }).join(), /never got 1 of its 3 owner events \(seq 9\)/);
  assert.match(compareWebhooks('t1', log, { startSeq: 5, got: [arrival(3), arrival(7), arrival(9, 'offer_filled'), arrival(12)] }).join(), /got seq 3 .*not an owner event after the endpoint's start/);
  assert.match(compareWebhooks('t1', log, { startSeq: 5, got: [arrival(9, 'offer_filled'), arrival(7), arrival(12)] }).join(), /got seq 7 after seq 9: not in log order/);
  assert.match(compareWebhooks('t1', log, { startSeq: 5, got: [arrival(7), arrival(9, 'offer_filled', 'ev_x'), arrival(12)] }).join(), /got seq 9 as ev_x/);
  assert.match(compareWebhooks('t1', log, { startSeq: 5, got: [arrival(7), arrival(9, 'listing_filled'), arrival(12)] }).join(), /the log has ev_9 \(offer_filled\)/);
});

void test('webhook_mirror: a replay the market queued must arrive once more', () => {
  const got = [arrival(7), arrival(9, 'offer_filled'), arrival(12)];
  const replays = [{ id: 'ev_9', seq: 9, before: 1 }];
  assert.deepEqual(compareWebhooks('t1', log, { startSeq: 5, got, replays, arrivals: new Map([['ev_9:9', 2]]) }), []);
  assert.match(compareWebhooks('t1', log, { startSeq: 5, got, replays, arrivals: new Map([['ev_9:9', 1]]) }).join(), /never got the replay of seq 9 \(ev_9\)/);
});

void test('stream_mirror: a viewer that got the public log from its start agrees; a gap, a reorder or a stray frame disagrees', () => {
  const pub = [entry(2, 'listed'), entry(4, 'delisted'), { seq: 6, event_id: 'ev_2', kind: 'listed' }];
  const frame = (seq: number, kind: string, event_id = `ev_${seq}`) => ({ seq, event_id, kind });
  // ev_2 came at seq 2 and again at seq 6 (a reprice): both frames were news.
  assert.deepEqual(compareStream('v0', pub, [frame(2, 'listed'), frame(4, 'delisted'), frame(6, 'listed', 'ev_2')]), []);
  assert.match(compareStream('v0', pub, [frame(2, 'listed'), frame(6, 'listed', 'ev_2')]).join(), /never received 1 of the 3 events \(seq 4\)/);
  assert.match(compareStream('v0', pub, [frame(4, 'delisted'), frame(2, 'listed'), frame(6, 'listed', 'ev_2')]).join(), /received seq 2 after seq 4: not in log order/);
  assert.match(compareStream('v0', pub, [frame(2, 'listed'), frame(3, 'sale'), frame(4, 'delisted'), frame(6, 'listed', 'ev_2')]).join(), /seq 3 \(ev_3, sale\), which its log neither holds nor carries again later/);
  assert.match(compareStream('v0', pub, [frame(2, 'listed'), frame(4, 'listed'), frame(6, 'listed', 'ev_2')]).join(), /received seq 4 as ev_4 \(listed\); the log has ev_4 \(delisted\)/);
});
