/**
 * The simulator's feed invariants (sim/feed-checks.ts) on logs written by hand: the public log
 * replayed into a book (listed, repriced, delisted, sold through its listing or through an offer
 * over its unit, a sale withdrawn by a retraction), and an owner log replayed into its subjects'
 * states (later entry of an event_id wins, a retraction falls back to the entry before,
 * confirmations left out). Each mistake of the market they exist to catch makes them disagree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mirrorBook, replayOwnerLog } from '../../sim/feed-checks.js';
import { eventId } from '../../src/trade/event-rows.js';

let seq = 0;
const listed = (l: string, price: number, asset = 'A1', seller = 's1') => ({ seq: ++seq, event_id: eventId('listed', l), kind: 'listed', price_sats: price, collection: 'c', seller, asset });
const delisted = (l: string) => ({ seq: ++seq, event_id: eventId('delisted', l), kind: 'delisted' });
const sale = (fill: string) => ({ seq: ++seq, event_id: eventId('sale', fill), kind: 'sale' });
const retract = (id: string) => ({ seq: ++seq, event_id: `ev_r${seq}`, kind: 'event_retracted', retracts: id });

const decode = (listings: string[], fills: Record<string, string | { seller: string; asset: string }>) => ({
  listing: new Map(listings.flatMap((l) => [[eventId('listed', l), l], [eventId('delisted', l), l]] as Array<[string, string]>)),
  sale: new Map(Object.entries(fills).map(([f, d]) => [eventId('sale', f), d])),
});

void test('feed_mirror: the public log replays to the book it describes', () => {
  const d = decode(['L1', 'L2', 'L3', 'L4', 'L5'], { F1: 'L2', F2: { seller: 's1', asset: 'A4' }, F3: 'L5' });
  const log = [
    listed('L1', 10_000), listed('L2', 11_000), listed('L3', 12_000), listed('L4', 13_000, 'A4'), listed('L5', 14_000),
    listed('L1', 9_000), // a reprice: the same event again, the later wins
    sale('F1'), // L2 sold through its listing
    delisted('L3'),
    sale('F2'), // an accepted offer over L4's unit
    sale('F3'), retract(eventId('sale', 'F3')), // L5's sale released: back on the book
  ];
  const book = mirrorBook(log, d, new Set(['L4']));
  assert.deepEqual([...book].map(([id, x]) => [id, x.price]).sort(), [['L1', 9_000], ['L5', 14_000]]);
});

void test('feed_mirror: an exposed listing leaves the book at its delisted; sold from exposed, the sale ends it once the delisted is withdrawn', () => {
  const d = decode(['L1', 'L2'], { F1: 'L2' });
  const log = [
    listed('L1', 10_000), listed('L2', 11_000),
    delisted('L1'), delisted('L1'), // exposed, then restated when it ended (same event id)
    delisted('L2'), sale('F1'), retract(eventId('delisted', 'L2')), // the released checkout mined after all
  ];
  assert.deepEqual([...mirrorBook(log, d, new Set())], []);
  // A feed that forgot the exposure keeps the listing on its mirror: the check then disagrees with the book.
  assert.deepEqual([...mirrorBook([listed('L1', 10_000)], d, new Set())].map(([id]) => id), ['L1']);
});

void test('feed_mirror: a feed that misses an ending, or an ask, disagrees with the book', () => {
  const d = decode(['L1', 'L2'], { F1: 'L1' });
  // The market sold L1 but the feed never said so: the mirror still shows it.
  assert.deepEqual([...mirrorBook([listed('L1', 10_000), listed('L2', 11_000)], d, new Set())].map(([id]) => id), ['L1', 'L2']);
  // A reprice the feed never carried: the mirror keeps the old ask.
  assert.equal(mirrorBook([listed('L2', 11_000)], d, new Set()).get('L2')?.price, 11_000);
});

void test('owner_feed_replay: the last live entry of each subject is its state; confirmations are the fill\'s', () => {
  const e = (kind: string, id: string, status: string, extra: Record<string, unknown> = {}) => ({ seq: ++seq, event_id: eventId(kind, id), kind, status, ...extra });
  const log = [
    e('listing_filled', 'F1', 'reserved', { listing_id: 'L1' }),
    e('listing_filled', 'F1', 'sold', { listing_id: 'L1' }), // the same event again: the listing sold
    e('sale_confirmed', 'F1', 'confirmed', { listing_id: 'L1' }), // the fill's, not the listing's
    e('listing_delisted', 'L2', 'ended', { listing_id: 'L2' }),
    e('listing_filled', 'F3', 'reserved', { listing_id: 'L3' }),
    e('offer_cancelled', 'O1', 'cancelled', { offer_id: 'O1' }),
    e('offer_accepted', 'O2', 'filled', { offer_id: 'O2' }),
  ];
  log.push({ seq: ++seq, event_id: 'ev_x', kind: 'event_retracted', retracts: eventId('offer_accepted', 'O2') } as never);
  const r = replayOwnerLog(log);
  assert.deepEqual(Object.fromEntries(r.listings), { L1: 'sold', L2: 'ended', L3: 'reserved' });
  // O2's only entry was withdrawn: the log says nothing of it any more (not compared).
  assert.deepEqual(Object.fromEntries(r.offers), { O1: 'cancelled' });
});

void test('owner_feed_replay: an exact authorization reads as its last live use or retirement', () => {
  const e = (kind: string, id: string, status: string) => ({ seq: ++seq, event_id: eventId(kind, id), kind, status, authorization_id: id });
  const log = [
    e('exact_authorization_used', 'A1', 'used'),
    e('exact_authorization_retired', 'A2', 'retired'),
    e('exact_authorization_used', 'A2', 'used'), // a released accept the chain confirmed after the cancel
    e('exact_authorization_used', 'A3', 'used'),
  ];
  log.push({ seq: ++seq, event_id: 'ev_y', kind: 'event_retracted', retracts: eventId('exact_authorization_used', 'A3') } as never);
  const r = replayOwnerLog(log);
  assert.deepEqual(Object.fromEntries(r.authorizations), { A1: 'used', A2: 'used' });
});
