import type { Migration } from 'kysely';
import * as m001 from './001_foundation.js';
import * as m002 from './002_devnet.js';
import * as m003 from './003_auth.js';
import * as m004 from './004_catalog.js';
import * as m005 from './005_settlement.js';
import * as m006 from './006_indexer.js';
import * as m007 from './007_listings.js';
import * as m008 from './008_checkout_fills.js';
import * as m009 from './009_market_reads.js';
import * as m010 from './010_feeds.js';
import * as m011 from './011_listing_reorgs.js';
import * as m012 from './012_auth_challenge_ids.js';
import * as m013 from './013_offers.js';
import * as m014 from './014_exact_offers.js';
import * as m015 from './015_counters.js';
import * as m016 from './016_book_asks.js';
import * as m017 from './017_book_bids.js';
import * as m018 from './018_artist_profiles.js';
import * as m019 from './019_policy_offers.js';
import * as m020 from './020_event_log.js';
import * as m021 from './021_webhooks.js';
import * as m022 from './022_leader_epochs.js';
import * as m023 from './023_listing_exposure.js';
import * as m024 from './024_cosigned_listings.js';
import * as m025 from './025_book_ask_levels.js';
import * as m026 from './026_webhook_lease_epoch.js';
import * as m027 from './027_book_ask_row_json.js';
import * as m040 from './040_settlement_members.js';
import * as m028 from './028_catalog_traits.js';
import * as m035 from './035_policy_preflight_holds.js';
import * as m050 from './050_seller_listings.js';
import * as m060 from './060_listings_exposed.js';
import * as m070 from './070_holding_totals.js';
import * as m080 from './080_analytics_totals.js';
import * as m065 from './065_policy_offer_cancels.js';
import * as m085 from './085_kept_reads.js';
import * as m090 from './090_top_sales_days.js';
import * as m095 from './095_fewer_sale_indexes.js';
import * as m096 from './096_counter_retirement.js';
import * as m097 from './097_offer_funding_inputs.js';

/** Numbered migrations, applied in key order. Never edit one that has shipped; add the next number. */
export const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_devnet': m002,
  '003_auth': m003,
  '004_catalog': m004,
  '005_settlement': m005,
  '006_indexer': m006,
  '007_listings': m007,
  '008_checkout_fills': m008,
  '009_market_reads': m009,
  '010_feeds': m010,
  '011_listing_reorgs': m011,
  '012_auth_challenge_ids': m012,
  '013_offers': m013,
  '014_exact_offers': m014,
  '015_counters': m015,
  '016_book_asks': m016,
  '017_book_bids': m017,
  '018_artist_profiles': m018,
  '019_policy_offers': m019,
  '020_event_log': m020,
  '021_webhooks': m021,
  '022_leader_epochs': m022,
  '023_listing_exposure': m023,
  '024_cosigned_listings': m024,
  '025_book_ask_levels': m025,
  '026_webhook_lease_epoch': m026,
  '027_book_ask_row_json': m027,
  '028_catalog_traits': m028,
  '035_policy_preflight_holds': m035,
  '040_settlement_members': m040,
  '050_seller_listings': m050,
  '060_listings_exposed': m060,
  '070_holding_totals': m070,
  '065_policy_offer_cancels': m065,
  '080_analytics_totals': m080,
  '085_kept_reads': m085,
  '090_top_sales_days': m090,
  '095_fewer_sale_indexes': m095,
  '096_counter_retirement': m096,
  '097_offer_funding_inputs': m097,
};
