import type { Db } from '../../store/db.js';
import type { KeysetPosition } from '../../store/keyset.js';
import { primaryCollections } from '../market/index.js';
import type { AssetLongnames } from './asset-longnames.js';
import type { OwnerEventWire, PublicEventWire, RetractionWire } from './schemas.js';
import { EventLogReader, type LogRow } from '../../events/log-reader.js';
import { RETRACTED } from '../../events/append.js';
import { OwnerEventStore, type OwnerEventRow } from './owner-store.js';
import { PublicEventStore, type PublicEventRow, type PublicKindFilter } from './public-store.js';

export interface Paged<T> {
  rows: T[];
  next: KeysetPosition | null;
}

/** Reads `limit + 1` rows to learn whether another page follows; the position is the last row kept. */
async function paged<R extends { at: number; event_id: string }>(read: (n: number) => Promise<R[]>, limit: number): Promise<Paged<R>> {
  const rows = await read(limit + 1);
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return { rows: kept, next: rows.length > limit && last ? [Number(last.at), last.event_id] : null };
}

/** The log's kinds behind each public `kind` filter; retractions pass every filter (they name an event_id, not a kind). */
const LOG_KINDS: Record<PublicKindFilter, string[]> = {
  sales: ['sale'],
  listings: ['listed', 'delisted'],
  offers: ['offer_placed', 'offer_ended', 'collection_offer_placed', 'collection_offer_ended'],
};

export type PublicLogWire = (PublicEventWire | RetractionWire) & { seq: number };
export type OwnerLogWire = (OwnerEventWire | RetractionWire) & { seq: number };

export class EventsService {
  private readonly publicStore: PublicEventStore;
  private readonly ownerStore: OwnerEventStore;
  readonly log: EventLogReader;

  constructor(
    private readonly db: Db,
    private readonly longnames: AssetLongnames,
  ) {
    this.publicStore = new PublicEventStore(db);
    this.ownerStore = new OwnerEventStore(db);
    this.log = new EventLogReader(db);
  }

  /** The public log after `after`, oldest first; `next` is the seq to pass back (the last read, or `after` when none). */
  async publicAfter(kind: PublicKindFilter | undefined, after: number, limit: number): Promise<{ rows: PublicLogWire[]; next: number }> {
    await this.log.checkPosition(after);
    const rows = await this.log.page({ feed: 'public', ...(kind ? { kinds: [...LOG_KINDS[kind], RETRACTED] } : {}) }, after, limit);
    return { rows: await this.renderPublic(rows), next: rows.length ? rows[rows.length - 1]!.seq : after };
  }

  /** The newest `limit` entries of the public log, oldest first; `next` is the seq to follow from (the head when none). */
  async publicTail(kind: PublicKindFilter | undefined, limit: number): Promise<{ rows: PublicLogWire[]; next: number }> {
    const rows = await this.log.last({ feed: 'public', ...(kind ? { kinds: [...LOG_KINDS[kind], RETRACTED] } : {}) }, limit);
    return { rows: await this.renderPublic(rows), next: rows.length ? rows[rows.length - 1]!.seq : (await this.log.head()).last };
  }

  async ownerAfter(address: string, after: number, limit: number): Promise<{ rows: OwnerLogWire[]; next: number }> {
    await this.log.checkPosition(after);
    const rows = await this.log.page({ feed: 'owner', address }, after, limit);
    return { rows: this.renderOwner(rows), next: rows.length ? rows[rows.length - 1]!.seq : after };
  }

  /** Log entries of the public feed as the feed shows them, with their seq (collections and longnames resolved as in a page). */
  async renderPublic(rows: LogRow[]): Promise<PublicLogWire[]> {
    const events = rows.filter((r) => r.kind !== RETRACTED).map((r) => JSON.parse(r.row_json) as PublicEventRow);
    const assets = events.map((r) => r.asset).filter((a): a is string => a !== null);
    const seed = new Map(events.filter((r) => r.asset && r.asset_longname).map((r) => [r.asset!, r.asset_longname]));
    const unnamed = events.filter((r) => r.kind !== 'sale' && r.asset).map((r) => r.asset!);
    const [collections, longnames] = await Promise.all([primaryCollections(this.db, assets), this.longnames.of(unnamed, seed)]);
    return rows.map((r) => (r.kind === RETRACTED ? retraction(r) : { seq: r.seq, ...publicEvent(JSON.parse(r.row_json) as PublicEventRow, collections, longnames) }));
  }

  renderOwner(rows: LogRow[]): OwnerLogWire[] {
    return rows.map((r) => (r.kind === RETRACTED ? retraction(r) : { seq: r.seq, ...ownerEvent(JSON.parse(r.row_json) as OwnerEventRow) }));
  }

  async publicPage(kind: PublicKindFilter | undefined, now: number, limit: number, after: KeysetPosition | undefined) {
    const { rows, next } = await paged((n) => this.publicStore.page(kind, now, n, after), limit);
    const assets = rows.map((r) => r.asset).filter((a): a is string => a !== null);
    const seed = new Map(rows.filter((r) => r.asset && r.asset_longname).map((r) => [r.asset!, r.asset_longname]));
    const unnamed = rows.filter((r) => r.kind !== 'sale' && r.asset).map((r) => r.asset!);
    const [collections, longnames] = await Promise.all([primaryCollections(this.db, assets), this.longnames.of(unnamed, seed)]);
    return { rows: rows.map((r) => publicEvent(r, collections, longnames)), next };
  }

  async ownerPage(address: string, now: number, limit: number, after: KeysetPosition | undefined) {
    const { rows, next } = await paged((n) => this.ownerStore.page(address, now, n, after), limit);
    return { rows: rows.map(ownerEvent), next };
  }
}

function retraction(r: LogRow): RetractionWire & { seq: number } {
  return { seq: r.seq, event_id: r.event_id, kind: RETRACTED, at: r.at, retracts: r.retracts! };
}

function publicEvent(r: PublicEventRow, collections: ReadonlyMap<string, string>, longnames: ReadonlyMap<string, string | null>): PublicEventWire {
  return {
    event_id: r.event_id,
    kind: r.kind,
    at: Number(r.at),
    reason: r.reason,
    asset: r.asset,
    asset_longname: r.kind === 'sale' ? r.asset_longname : r.asset ? (longnames.get(r.asset) ?? null) : null,
    collection: r.collection ?? (r.asset ? (collections.get(r.asset) ?? null) : null),
    price_sats: Number(r.price_sats),
    seller: r.seller,
    buyer: r.buyer,
    bidder: r.bidder,
    txid: r.txid,
    fill_kind: r.fill_kind,
    confirmed_at: r.confirmed_at === null ? null : Number(r.confirmed_at),
  };
}

/** Extras a stored row may carry in `data` (the writers' JSON), passed through when well formed. */
const STRING_EXTRAS = ['offer_id', 'authorization_id', 'parent_txid', 'funding_slot_id', 'collection', 'exposure_reason', 'delivery_failure'] as const;

function parseData(data: string | null): Record<string, unknown> {
  if (!data) return {};
  try {
    const v: unknown = JSON.parse(data);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function ownerEvent(r: OwnerEventRow): OwnerEventWire {
  const data = parseData(r.data);
  const out: OwnerEventWire & Record<string, unknown> = {
    event_id: r.event_id,
    kind: r.kind as OwnerEventWire['kind'],
    at: Number(r.at),
    role: r.role,
    status: r.status,
    asset: r.asset,
    price_sats: r.price_sats === null ? null : Number(r.price_sats),
    txid: r.txid,
  };
  if (r.listing_id) out.listing_id = r.listing_id;
  if (r.offer_id) out.offer_id = r.offer_id;
  for (const k of STRING_EXTRAS) if (out[k] === undefined && typeof data[k] === 'string') out[k] = data[k];
  const utxo = data.asset_utxo as { txid?: unknown; vout?: unknown } | undefined;
  if (r.utxo_txid !== null && r.utxo_vout !== null) out.asset_utxo = { txid: r.utxo_txid, vout: Number(r.utxo_vout) };
  else if (utxo && typeof utxo.txid === 'string' && Number.isInteger(utxo.vout)) out.asset_utxo = { txid: utxo.txid, vout: utxo.vout as number };
  if (r.expires_at !== null) out.expires_at = Number(r.expires_at);
  else if (Number.isInteger(data.expires_at)) out.expires_at = data.expires_at as number;
  return out;
}
