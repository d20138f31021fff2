/**
 * The feeds tell the truth (#32 item 3, truthful reads), checked at quiescent points:
 *
 * - **feed_mirror**: a book built only from the public feed's ordered log (`GET /v1/events?after=`,
 *   applied entry by entry, later wins, retractions withdraw) lists, per collection, exactly the
 *   listings at exactly the asks that `GET /v1/collections/{slug}/book` shows.
 * - **owner_feed_replay**: every trader's owner log (`GET /v1/address/{a}/events?after=`), replayed,
 *   leaves each listing and each offer it speaks of in the state the owner's reads give now
 *   (`/v1/address/{a}/listings`, `/v1/address/{a}/offers`).
 *
 * The public feed names no listing (its events are keyed by event_id: a hash of kind and subject);
 * the oracle's store is used only to translate those ids back to listing ids, never as a state.
 */
import { eventId } from '../src/trade/event-rows.js';
import type { Violation } from './history.js';
import type { Trader } from './traders.js';
import type { Check } from './invariants.js';

export type Entry = Record<string, any> & { seq: number; event_id: string; kind: string };
const v = (name: string, message: string): Violation => ({ name, message });

/** Every entry of a log read with `after` (from the start, or after `from`), oldest first. */
export async function readLog(read: (after: number) => Promise<{ result: Entry[]; next_after: number }>, from = 0): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let after = from; ; ) {
    const page = await read(after);
    out.push(...page.result);
    if (page.result.length < 100) return out;
    after = page.next_after;
  }
}

async function publicJson(url: string): Promise<any> {
  const r = await fetch(url, { headers: { 'cache-control': 'no-cache', 'x-forwarded-for': '10.250.0.1' } });
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** The public log replayed: each listing (by id) that the feed says is on the book, with its ask and collection. */
export function mirrorBook(entries: Entry[], decode: { listing: Map<string, string>; sale: Map<string, string | { seller: string; asset: string }> }, soldByOffer: Set<string>) {
  const listed = new Map<string, { price: number; collection: string | null; seller: string; asset: string }>();
  const endings = new Map<string, Set<string>>(); // listing id → the live ending events
  const endingOf = new Map<string, string>(); // ending event id → listing id
  const listedBy = new Map<string, string>(); // listed event id → listing id
  const end = (l: string, ev: string) => {
    endingOf.set(ev, l);
    (endings.get(l) ?? endings.set(l, new Set()).get(l)!).add(ev);
  };
  for (const e of entries) {
    if (e.kind === 'listed') {
      const l = decode.listing.get(e.event_id);
      if (!l) continue;
      listedBy.set(e.event_id, l);
      listed.set(l, { price: e.price_sats, collection: e.collection, seller: e.seller, asset: e.asset });
    } else if (e.kind === 'delisted') {
      const l = decode.listing.get(e.event_id);
      if (l) end(l, e.event_id);
    } else if (e.kind === 'sale') {
      const d = decode.sale.get(e.event_id);
      if (typeof d === 'string') end(d, e.event_id);
      else if (d) {
        // An accepted offer over a listed unit: the feed says only (seller, asset); the listing of
        // that pair the market sold that way, still on the mirror.
        const l = [...listed.entries()].find(([id, x]) => x.seller === d.seller && x.asset === d.asset && soldByOffer.has(id) && !endings.get(id)?.size)?.[0];
        if (l) end(l, e.event_id);
      }
    } else if (e.kind === 'event_retracted') {
      const l = listedBy.get(e.retracts);
      if (l) listed.delete(l);
      const ended = endingOf.get(e.retracts);
      if (ended) endings.get(ended)?.delete(e.retracts);
    }
  }
  return new Map([...listed].filter(([id]) => !endings.get(id)?.size));
}

export const feedMirror: Check = {
  name: 'feed_mirror',
  run: async (w) => {
    const m = w.live()[0];
    if (!m) return [v('feed_mirror', 'no instance is up to read')];
    const entries = await readLog((after) => publicJson(`${m.url}/v1/events?after=${after}&limit=100`));
    const { listingIds, fills, held, soldByOffer } = await w.withDb(async (q) => ({
      listingIds: (await q('select id from listings')).map((r) => r.id as string),
      fills: await q('select id, kind, ref_id, seller, asset from fills'),
      // A listing held by a settlement in flight is reserved: off the book, and the public feed has
      // no event for a reservation (the sale follows, or the claim's release puts it back).
      held: new Map((await q(`select l.id, l.state, s.id as settlement, s.state as settlement_state from listings l left join outpoint_claims c on c.outpoint = l.utxo_outpoint left join settlements s on s.id = c.settlement_id`)).map((r) => [r.id as string, r])),
      soldByOffer: new Set((await q(`select l.id from listings l where l.state = 'sold' and not exists (select 1 from fills f where f.kind = 'listing' and f.ref_id = l.id and f.state <> 'dropped')`)).map((r) => r.id as string)),
    }));
    const listing = new Map<string, string>();
    for (const id of listingIds) for (const k of ['listed', 'delisted']) listing.set(eventId(k, id), id);
    const sale = new Map<string, string | { seller: string; asset: string }>(fills.map((f) => [eventId('sale', f.id), f.kind === 'listing' ? f.ref_id : { seller: f.seller, asset: f.asset }]));
    const mirror = mirrorBook(entries, { listing, sale }, soldByOffer);
    const out: Violation[] = [];
    const collections = (await publicJson(`${m.url}/v1/collections?limit=100`)).result as Array<{ slug: string }>;
    for (const { slug } of collections) {
      const book = (await publicJson(`${m.url}/v1/collections/${slug}/book`)).result;
      const shown = new Map<string, number>(book.asks.flatMap((level: any) => level.listings.map((l: any) => [l.id, l.price_sats] as [string, number])));
      const mirrored = new Map([...mirror].filter(([, x]) => x.collection === slug).map(([id, x]) => [id, x.price]));
      for (const [id, price] of shown) {
        if (!mirrored.has(id)) out.push(v('feed_mirror', `the ${slug} book shows ${id} at ${price}; the public feed says it is not on the book`));
        else if (mirrored.get(id) !== price) out.push(v('feed_mirror', `the ${slug} book shows ${id} at ${price}; the public feed's last ask for it is ${mirrored.get(id)}`));
      }
      // A truncated book shows only its first levels: then only what it shows is compared.
      if (book.listings_truncated) continue;
      for (const [id, price] of mirrored) {
        if (shown.has(id)) continue;
        const row = held.get(id);
        // Reserved by a settlement in flight: off the book with no public event (its sale or its
        // release follows). An exposed listing is held to the check: its `delisted` is written at
        // its exposure (issue 31 item 6, found here on seed 3201).
        if (row?.settlement && !['rejected', 'conflicted', 'confirmed'].includes(String(row.settlement_state))) continue;
        const why = row ? ` (its row: ${String(row.state)}${row.settlement ? `, claimed by ${String(row.settlement)} ${String(row.settlement_state)}` : ', unclaimed'})` : '';
        out.push(v('feed_mirror', `the public feed says ${id} is on the ${slug} book at ${price}; the book does not show it${why}`));
      }
    }
    return out;
  },
};

/** What a subject's owner events say of it now: the last live entry's `status`, by subject. */
export function replayOwnerLog(entries: Entry[]): { listings: Map<string, string>; offers: Map<string, string>; authorizations: Map<string, string> } {
  const bySubject = new Map<string, Entry[]>(); // `listing:id` / `offer:id` / `authorization:id` → live entries, oldest first
  const subjectOf = new Map<string, string>();
  for (const e of entries) {
    if (e.kind === 'event_retracted') {
      const s = subjectOf.get(e.retracts);
      if (s) bySubject.set(s, bySubject.get(s)!.filter((x) => x.event_id !== e.retracts));
      continue;
    }
    // Confirmations speak of the fill (status `confirmed`), not of the listing's state.
    const subject =
      e.kind.startsWith('listing_') && e.listing_id
        ? `listing:${e.listing_id}`
        : e.kind.startsWith('offer_') && e.offer_id
          ? `offer:${e.offer_id}`
          : e.kind.startsWith('exact_authorization_') && e.authorization_id
            ? `authorization:${e.authorization_id}`
            : undefined;
    if (!subject) continue;
    subjectOf.set(e.event_id, subject);
    // An event_id that comes again replaces its earlier entry (later wins) and moves to the end.
    bySubject.set(subject, [...(bySubject.get(subject) ?? []).filter((x) => x.event_id !== e.event_id), e]);
  }
  const out = { listings: new Map<string, string>(), offers: new Map<string, string>(), authorizations: new Map<string, string>() };
  for (const [subject, list] of bySubject) {
    const last = list.at(-1);
    if (!last) continue;
    const [kind, id] = subject.split(':') as [string, string];
    (kind === 'listing' ? out.listings : kind === 'offer' ? out.offers : out.authorizations).set(id, last.status);
  }
  return out;
}

export const ownerFeedReplay: Check = {
  name: 'owner_feed_replay',
  run: async (_w, traders: Trader[]) => {
    const out: Violation[] = [];
    for (const t of traders) {
      await t.ensureSignedIn();
      const path = `/v1/address/${t.address}`;
      const entries = await readLog(async (after) => (await t.client.http.request<Entry[]>('GET', `${path}/events`, { query: { after, limit: 100 } })).body as any);
      const replayed = replayOwnerLog(entries);
      const now = async (route: string, field: string, key = 'id') => {
        const states = new Map<string, string>();
        for (let cursor: string | undefined; ; ) {
          const page = (await t.client.http.request<any[]>('GET', `${path}/${route}`, { query: { limit: 100, cursor } })).body as any;
          for (const x of page.result) states.set(x[key], x[field]);
          if (!page.next_cursor) return states;
          cursor = page.next_cursor;
        }
      };
      const [listings, offers] = [await now('listings', 'state'), await now('offers', 'status')];
      for (const [id, said] of replayed.listings) {
        const is = listings.get(id);
        if (is !== said) out.push(v('owner_feed_replay', `${t.name}'s owner feed replays listing ${id} to ${said}; the seller's listings read ${is ?? 'no such listing'}`));
      }
      for (const [id, said] of replayed.offers) {
        const is = offers.get(id);
        if (is !== said) out.push(v('owner_feed_replay', `${t.name}'s owner feed replays offer ${id} to ${said}; the bidder's offers read ${is ?? 'no such offer'}`));
      }
      // Only a use and a retirement are events (the spec names no others): an authorization the
      // feed speaks of must read as its last event says.
      if (replayed.authorizations.size) {
        const auths = await now('exact-authorizations', 'status', 'authorization_id');
        for (const [id, said] of replayed.authorizations) {
          const is = auths.get(id);
          if (is !== said) out.push(v('owner_feed_replay', `${t.name}'s owner feed replays exact authorization ${id} to ${said}; the bidder's authorizations read ${is ?? 'no such authorization'}`));
        }
      }
    }
    return out;
  },
};
