/**
 * The typed shape of every table, composed from each area's own table file so
 * one Kysely instance serves the whole service. Booleans are stored as 0/1 and
 * times as integers on both backends so one code path reads them the same way.
 */
import type { FoundationTables } from './foundation-tables.js';
import type { AuthTables } from '../modules/auth/tables.js';
import type { CatalogTables } from '../modules/market/catalog-tables.js';
import type { SettlementTables } from '../settlement/tables.js';
import type { IndexerTables } from '../indexer/tables.js';
import type { DevnetTables } from '../chain/devnet/tables.js';
import type { ListingTables } from '../modules/listings/tables.js';
import type { CheckoutTables } from '../modules/checkout/tables.js';
import type { FillTables } from '../modules/fills/tables.js';
import type { BalanceViewTables } from '../modules/market/balance-view-tables.js';
import type { ArtistEditTables } from '../modules/market/artist-edit-tables.js';

export interface DatabaseSchema extends FoundationTables, AuthTables, CatalogTables, SettlementTables, IndexerTables, DevnetTables, ListingTables, CheckoutTables, FillTables, BalanceViewTables, ArtistEditTables {}
