/**
 * The analytics read's kept aggregates, written only by the database's triggers (migration 080)
 * on every write to `listings`, `offers`, `policy_offers` and `fills`, whoever makes it. Expiry is
 * not in them: the read subtracts what is still `active` past its expiry.
 */
export interface AnalyticsTotalsTables {
  /** Per seller with `active` listings: how many, and their prices summed. */
  analytics_sellers: { seller: string; listings: number; value: number };
  /** Per price: `active` listings at it. */
  analytics_ask_levels: { price_sats: number; listings: number };
  /** Per backing (a public offer's funding slot, a collection offer's funding set) and price: its live offers. */
  analytics_backing_prices: { backing: string; price_sats: number; offers: number };
  /** Per backing with a live offer: the highest price it bids. */
  analytics_backings: { backing: string; price_sats: number };
  /** Per price: backings whose highest bid it is. */
  analytics_bid_levels: { price_sats: number; backings: number };
  /** Per bidder: its live offers. */
  analytics_bidders: { bidder: string; offers: number };
  /** One row per market figure: listings, value, sellers, backings, bidders. */
  analytics_counts: { name: string; n: number };
  /** Per UTC hour (broadcast_at / 3600) and sale kind: confirmed fills' volume and count. */
  analytics_sales_hours: { hour: number; kind: string; volume: number; sales: number };
  /** The same per UTC minute (broadcast_at / 60): the window's edge hours. */
  analytics_sales_minutes: { minute: number; kind: string; volume: number; sales: number };
  /** Per buyer, seller and txid (`role`): its last confirmed fill's broadcast time. */
  analytics_sale_last: { role: string; key: string; last_at: number };
  /** Per role and hour: rows of analytics_sale_last whose last fill is in that hour. */
  analytics_sale_last_hours: { role: string; hour: number; n: number };
  /** The same per role and minute: the window's edge hours. */
  analytics_sale_last_minutes: { role: string; minute: number; n: number };
}

declare module '../../store/schema.js' {
  interface DatabaseSchema extends AnalyticsTotalsTables {}
}
