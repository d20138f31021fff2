/** The checkout's SQL: quotes, the fillable listings a cart draws from, and its fills. */
import crypto from 'node:crypto';
import type { Db, Tx } from '../../store/db.js';
import { compiledOnce } from '../../store/compiled.js';
import type { CheckoutTables } from './tables.js';
import type { FillTables } from '../../trade/fill-tables.js';
import type { ListingRow } from '../listings/index.js';
import { SellerHalves } from './seller-half.js';

export type QuoteRow = CheckoutTables['checkout_quotes'];
export type FillRow = FillTables['fills'];

/** One quoted unit, stored as JSON in `checkout_quotes.lines` in PSBT pair order. */
export interface QuoteLine {
  listing_id: string;
  version: number;
  price_sats: number;
  platform_fee_sats: number;
  utxo_outpoint: string;
  utxo_value_sats: number;
  asset: string;
  asset_longname: string | null;
  quantity_raw: string;
  seller: string;
}

export const newQuoteId = () => `cq_${crypto.randomBytes(12).toString('hex')}`;

export const quoteLines = (q: QuoteRow): QuoteLine[] => JSON.parse(q.lines) as QuoteLine[];

// Compiled once (store/compiled.ts): every completion reads its quote and, twice, its listings.
const quoteById = compiledOnce((db, id: string) => db.selectFrom('checkout_quotes').selectAll().where('id', '=', id));
const listingsByCount = new Map<number, (db: Db | Tx, ...ids: string[]) => Promise<{ rows: unknown[] }>>();
/** One statement per id count (a cart holds at most a few dozen lines), each compiled once. */
function listingsById(n: number) {
  let f = listingsByCount.get(n);
  if (!f) listingsByCount.set(n, (f = compiledOnce((db, ...ids: string[]) => db.selectFrom('listings').selectAll().where('id', 'in', ids))));
  return f;
}

export class CheckoutStore {
  /** Parsed seller halves, shared by the quotes and the completions made over this store. */
  readonly halves = new SellerHalves();

  constructor(readonly db: Db) {}

  async quote(id: string, db: Db | Tx = this.db): Promise<QuoteRow | undefined> {
    return (await quoteById(db, id)).rows[0] as QuoteRow | undefined;
  }

  async insertQuote(row: QuoteRow): Promise<void> {
    await this.db.insertInto('checkout_quotes').values(row).execute();
  }

  async listings(ids: string[], db: Db | Tx = this.db): Promise<ListingRow[]> {
    if (!ids.length) return [];
    return (await listingsById(ids.length)(db, ...ids)).rows as ListingRow[];
  }

  /**
   * Fillable listings of `asset`, cheapest first (then oldest, then id): active, not past their
   * expiry, holding a seller half, their outpoint not claimed by a settlement, not in `exclude`.
   * `own` narrows to the caller's listings (true) or to everybody else's (false).
   */
  fillableOf(asset: string, caller: string, own: boolean, now: number, exclude: string[], limit: number): Promise<ListingRow[]> {
    let q = this.db
      .selectFrom('listings')
      .selectAll()
      .where('asset', '=', asset)
      .where('state', '=', 'active')
      .where('expires_at', '>', now)
      .where('signed_psbt', 'is not', null)
      .where('seller', own ? '=' : '!=', caller)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('outpoint_claims').select('outpoint_claims.outpoint').whereRef('outpoint_claims.outpoint', '=', 'listings.utxo_outpoint'))),
      );
    if (exclude.length) q = q.where('id', 'not in', exclude);
    return q.orderBy('price_sats', 'asc').orderBy('created_at', 'asc').orderBy('id', 'asc').limit(limit).execute();
  }

  fillsOf(settlementId: string, db: Db | Tx = this.db): Promise<FillRow[]> {
    return db.selectFrom('fills').selectAll().where('settlement_id', '=', settlementId).orderBy('id').execute();
  }
}
