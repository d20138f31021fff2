import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * What the analytics read (modules/market/analytics-service.ts) used to count over the whole
 * market on every call, kept ready by the database in the same transaction as the change,
 * whoever makes it. Expiry is not in the kept rows (it is derived at read time): the read
 * subtracts the few rows still `active` past their expiry (the expiry job ends them).
 *
 * - Asks, of listings in state `active`: per seller (`analytics_sellers`) and per price
 *   (`analytics_ask_levels`).
 * - Bids, of live public offers (`active`, no `target_txid`) and live collection offers
 *   (`active`), each counted once per backing (its funding slot or funding set):
 *   `analytics_backing_prices` (backing, price → offers), `analytics_backings` (backing → its
 *   highest price), `analytics_bid_levels` (price → backings), `analytics_bidders`.
 * - `analytics_counts`: one row per figure (listings, value, sellers, backings, bidders).
 * - Sales, of confirmed fills: per (UTC hour, kind) and per (UTC minute, kind) volume and count
 *   (`analytics_sales_hours`, `analytics_sales_minutes`: the window's whole hours, then its edge
 *   hours' whole minutes);
 *   per buyer, seller and txid the time of its last confirmed fill (`analytics_sale_last`), and
 *   those counted per (role, hour) and (role, minute) (`analytics_sale_last_hours`, `…_minutes`): "distinct in the window" is
 *   "last fill in the window" plus the few whose last fill is after it (checked at read time).
 *
 * Running sums of +/- (a row whose count reaches zero goes), except the last-fill rows, which a
 * change recomputes from `fills` (a reorg can take a last fill away).
 *
 * PostgreSQL: the market tables' triggers run at commit (deferred constraint triggers) under the
 * advisory lock the book's upkeep already takes (migration 025, the same key, so the two can
 * never wait on each other): by then the transaction holds every row lock it will take, and the
 * upkeep writes only these tables, which nothing else writes, so the shared lines (the counts,
 * a seller's, a price's) cannot close a deadlock between two transactions that change several
 * listings, offers or fills in different orders. The kept tables' own triggers (lines built on
 * lines) are plain row triggers inside that upkeep.
 */

const HOUR = 3600;
/** `SELECT … WHERE` with a condition (so SQLite parses the upsert after it). */
const addSeller = (r: string, sign: 1 | -1, live: string) =>
  `INSERT INTO analytics_sellers (seller, listings, value) SELECT ${r}.seller, ${sign}, ${sign} * ${r}.price_sats WHERE ${live}
     ON CONFLICT (seller) DO UPDATE SET listings = analytics_sellers.listings + excluded.listings, value = analytics_sellers.value + excluded.value`;
const addAskLevel = (r: string, sign: 1 | -1, live: string) =>
  `INSERT INTO analytics_ask_levels (price_sats, listings) SELECT ${r}.price_sats, ${sign} WHERE ${live}
     ON CONFLICT (price_sats) DO UPDATE SET listings = analytics_ask_levels.listings + excluded.listings`;
const addCount = (name: string, delta: string, live = 'true') => `UPDATE analytics_counts SET n = n + ${delta} WHERE name = '${name}' AND ${live}`;

const listingLive = (r: string) => `${r}.state = 'active'`;
const listingIn = (n: string) => [
  addSeller(n, 1, listingLive(n)),
  addAskLevel(n, 1, listingLive(n)),
  addCount('listings', '1', listingLive(n)),
  addCount('value', `${n}.price_sats`, listingLive(n)),
];
const listingOut = (o: string) => [
  addSeller(o, -1, listingLive(o)),
  `DELETE FROM analytics_sellers WHERE seller = ${o}.seller AND listings <= 0`,
  addAskLevel(o, -1, listingLive(o)),
  `DELETE FROM analytics_ask_levels WHERE price_sats = ${o}.price_sats AND listings <= 0`,
  addCount('listings', '-1', listingLive(o)),
  addCount('value', `-${o}.price_sats`, listingLive(o)),
];

/** A bid (public offer or collection offer) in or out of its backing's and bidder's lines. */
const bidIn = (r: string, backing: string, live: string) => [
  `INSERT INTO analytics_backing_prices (backing, price_sats, offers) SELECT ${r}.${backing}, ${r}.price_sats, 1 WHERE ${live}
     ON CONFLICT (backing, price_sats) DO UPDATE SET offers = analytics_backing_prices.offers + 1`,
  `INSERT INTO analytics_bidders (bidder, offers) SELECT ${r}.bidder, 1 WHERE ${live}
     ON CONFLICT (bidder) DO UPDATE SET offers = analytics_bidders.offers + 1`,
];
const bidOut = (r: string, backing: string, live: string) => [
  `UPDATE analytics_backing_prices SET offers = offers - 1 WHERE backing = ${r}.${backing} AND price_sats = ${r}.price_sats AND ${live}`,
  `DELETE FROM analytics_backing_prices WHERE backing = ${r}.${backing} AND price_sats = ${r}.price_sats AND offers <= 0`,
  `UPDATE analytics_bidders SET offers = offers - 1 WHERE bidder = ${r}.bidder AND ${live}`,
  `DELETE FROM analytics_bidders WHERE bidder = ${r}.bidder AND offers <= 0`,
];
const offerLive = (r: string) => `${r}.state = 'active' AND ${r}.target_txid IS NULL`;
const policyLive = (r: string) => `${r}.state = 'active'`;

/** A backing's line recomputed from its prices (its highest one). */
const backingOf = (backing: string) => [
  `DELETE FROM analytics_backings WHERE backing = ${backing}`,
  `INSERT INTO analytics_backings (backing, price_sats) SELECT ${backing}, max(price_sats) FROM analytics_backing_prices WHERE backing = ${backing} HAVING count(*) > 0`,
];
const backingIn = (n: string) => [
  `INSERT INTO analytics_bid_levels (price_sats, backings) SELECT ${n}.price_sats, 1 WHERE true
     ON CONFLICT (price_sats) DO UPDATE SET backings = analytics_bid_levels.backings + 1`,
  addCount('backings', '1'),
];
const backingOut = (o: string) => [
  `UPDATE analytics_bid_levels SET backings = backings - 1 WHERE price_sats = ${o}.price_sats`,
  `DELETE FROM analytics_bid_levels WHERE price_sats = ${o}.price_sats AND backings <= 0`,
  addCount('backings', '-1'),
];

/** The time buckets kept: whole hours for the window, whole minutes for its edge hours. */
const BUCKETS = [
  ['hours', 'hour', HOUR],
  ['minutes', 'minute', 60],
] as const;
/**
 * A row's step (`sign` 1 in, -1 out) in each bucket table `${prefix}_hours|minutes`: keyed by
 * `key` (column → expression) and the bucket of `at`, adding `sums` (column → expression), when
 * `when` holds; a line whose `last` column reaches zero goes.
 */
const bucketStep = (prefix: string, r: string, sign: 1 | -1, at: string, key: Record<string, string>, sums: Record<string, string>, when: string) =>
  BUCKETS.flatMap(([suffix, c, w]) => {
    const t = `${prefix}_${suffix}`;
    const keys = Object.keys(key);
    const match = [`${c} = ${r}.${at} / ${w}`, ...keys.map((k) => `${k} = ${key[k]}`)].join(' AND ');
    const cols = Object.keys(sums);
    if (sign === 1) {
      return [
        `INSERT INTO ${t} (${c}, ${[...keys, ...cols].join(', ')}) SELECT ${r}.${at} / ${w}, ${[...keys.map((k) => key[k]), ...cols.map((k) => sums[k])].join(', ')} WHERE ${when}
         ON CONFLICT (${[c, ...keys].join(', ')}) DO UPDATE SET ${cols.map((k) => `${k} = ${t}.${k} + excluded.${k}`).join(', ')}`,
      ];
    }
    return [
      `UPDATE ${t} SET ${cols.map((k) => `${k} = ${k} - ${sums[k]}`).join(', ')} WHERE ${match} AND ${when}`,
      `DELETE FROM ${t} WHERE ${match} AND ${cols.at(-1)} <= 0`,
    ];
  });
/** Confirmed fills per bucket and kind. */
const sale = (r: string, sign: 1 | -1) =>
  bucketStep('analytics_sales', r, sign, 'broadcast_at', { kind: `${r}.kind` }, { volume: `${r}.price_sats`, sales: '1' }, `${r}.state = 'confirmed'`);
const ROLES = ['buyer', 'seller', 'txid'] as const;
/** The last confirmed fill of `r`'s buyer, seller and txid, recomputed (only when `r` is confirmed: nothing else counts). */
const lastOf = (r: string) =>
  ROLES.flatMap((role) => [
    `DELETE FROM analytics_sale_last WHERE role = '${role}' AND key = ${r}.${role} AND ${r}.state = 'confirmed'`,
    `INSERT INTO analytics_sale_last (role, key, last_at) SELECT '${role}', ${r}.${role}, f.broadcast_at FROM fills f
       WHERE f.${role} = ${r}.${role} AND f.state = 'confirmed' AND ${r}.state = 'confirmed' ORDER BY f.broadcast_at DESC LIMIT 1`,
  ]);
const fillIn = (n: string) => [...sale(n, 1), ...lastOf(n)];
const fillOut = (o: string) => [...sale(o, -1), ...lastOf(o)];
/** Last fills per role and bucket. */
const lastIn = (n: string) => bucketStep('analytics_sale_last', n, 1, 'last_at', { role: `${n}.role` }, { n: '1' }, 'true');
const lastOut = (o: string) => bucketStep('analytics_sale_last', o, -1, 'last_at', { role: `${o}.role` }, { n: '1' }, 'true');

const body = (stmts: string[]) => stmts.map((s) => `${s};`).join('\n');

/** Each kept table's triggers: the table, the columns an update must watch, and its out/in statements. */
const TRIGGERS: Array<{ name: string; table: string; columns: string | null; out: (o: string) => string[]; in: (n: string) => string[] }> = [
  { name: 'analytics_listing', table: 'listings', columns: 'state, seller, price_sats', out: listingOut, in: listingIn },
  { name: 'analytics_offer', table: 'offers', columns: 'state, target_txid, slot_id, price_sats, bidder', out: (o) => bidOut(o, 'slot_id', offerLive(o)), in: (n) => bidIn(n, 'slot_id', offerLive(n)) },
  {
    name: 'analytics_policy_offer',
    table: 'policy_offers',
    columns: 'state, funding_set_id, price_sats, bidder',
    out: (o) => bidOut(o, 'funding_set_id', policyLive(o)),
    in: (n) => bidIn(n, 'funding_set_id', policyLive(n)),
  },
  // Only a row that comes or goes changes a backing's highest price.
  { name: 'analytics_backing_price', table: 'analytics_backing_prices', columns: null, out: (o) => backingOf(`${o}.backing`), in: (n) => backingOf(`${n}.backing`) },
  { name: 'analytics_backing', table: 'analytics_backings', columns: 'price_sats', out: backingOut, in: backingIn },
  { name: 'analytics_seller', table: 'analytics_sellers', columns: null, out: () => [addCount('sellers', '-1')], in: () => [addCount('sellers', '1')] },
  { name: 'analytics_bidder', table: 'analytics_bidders', columns: null, out: () => [addCount('bidders', '-1')], in: () => [addCount('bidders', '1')] },
  { name: 'analytics_fill', table: 'fills', columns: 'state, broadcast_at, kind, price_sats, buyer, seller, txid', out: fillOut, in: fillIn },
  { name: 'analytics_last', table: 'analytics_sale_last', columns: 'last_at', out: lastOut, in: lastIn },
];

export async function up(db: Kysely<any>): Promise<void> {
  const table = (name: string, cols: Array<[string, 'text' | 'bigint']>, key: string[]) => {
    let t = db.schema.createTable(name);
    for (const [c, type] of cols) t = t.addColumn(c, type, (col) => col.notNull());
    return t.addPrimaryKeyConstraint(`${name}_pk`, key as any).execute();
  };
  await table('analytics_sellers', [['seller', 'text'], ['listings', 'bigint'], ['value', 'bigint']], ['seller']);
  await table('analytics_ask_levels', [['price_sats', 'bigint'], ['listings', 'bigint']], ['price_sats']);
  await table('analytics_backing_prices', [['backing', 'text'], ['price_sats', 'bigint'], ['offers', 'bigint']], ['backing', 'price_sats']);
  await table('analytics_backings', [['backing', 'text'], ['price_sats', 'bigint']], ['backing']);
  await table('analytics_bid_levels', [['price_sats', 'bigint'], ['backings', 'bigint']], ['price_sats']);
  await table('analytics_bidders', [['bidder', 'text'], ['offers', 'bigint']], ['bidder']);
  await table('analytics_counts', [['name', 'text'], ['n', 'bigint']], ['name']);
  for (const [suffix, c] of BUCKETS) await table(`analytics_sales_${suffix}`, [[c, 'bigint'], ['kind', 'text'], ['volume', 'bigint'], ['sales', 'bigint']], [c, 'kind']);
  await table('analytics_sale_last', [['role', 'text'], ['key', 'text'], ['last_at', 'bigint']], ['role', 'key']);
  for (const [suffix, c] of BUCKETS) await table(`analytics_sale_last_${suffix}`, [['role', 'text'], [c, 'bigint'], ['n', 'bigint']], ['role', c]);
  // The window's edges count last fills by time.
  await db.schema.createIndex('analytics_sale_last_at').on('analytics_sale_last').columns(['role', 'last_at']).execute();
  // A txid's last confirmed fill, found by txid (buyer and seller have theirs: fills_buyer, fills_seller).
  await db.schema.createIndex('fills_txid').on('fills').columns(['txid', 'broadcast_at']).execute();
  // The window's edge hours summed from the index alone.
  await db.schema.createIndex('fills_sold').on('fills').columns(['state', 'broadcast_at', 'kind', 'price_sats']).execute();
  // The read's top sales: confirmed fills from the highest price down, stopping at ten in the window.
  await sql.raw(`CREATE INDEX fills_top ON fills (state, price_sats DESC, broadcast_at DESC, id)`).execute(db);

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const t of TRIGGERS) {
      const cols = t.columns ?? null;
      await sql.raw(`CREATE TRIGGER ${t.name}_in AFTER INSERT ON ${t.table} BEGIN ${body(t.in('NEW'))} END`).execute(db);
      await sql.raw(`CREATE TRIGGER ${t.name}_out AFTER DELETE ON ${t.table} BEGIN ${body(t.out('OLD'))} END`).execute(db);
      if (cols) await sql.raw(`CREATE TRIGGER ${t.name}_change AFTER UPDATE OF ${cols} ON ${t.table} BEGIN ${body([...t.out('OLD'), ...t.in('NEW')])} END`).execute(db);
    }
  } else {
    for (const t of TRIGGERS) {
      // A market table's change: at commit, under the book's upkeep lock (see the header).
      const market = !t.table.startsWith('analytics_');
      await sql.raw(`CREATE FUNCTION ${t.name}_kept() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${market ? 'PERFORM pg_advisory_xact_lock(25, hashtext(current_schema()));' : ''}
          IF TG_OP <> 'INSERT' THEN ${body(t.out('OLD'))} END IF;
          IF TG_OP <> 'DELETE' THEN ${body(t.in('NEW'))} END IF;
          RETURN NULL;
        END $$`).execute(db);
      const events = t.columns ? `INSERT OR DELETE OR UPDATE OF ${t.columns}` : 'INSERT OR DELETE';
      const kind = market ? 'CONSTRAINT TRIGGER' : 'TRIGGER';
      const when = market ? 'DEFERRABLE INITIALLY DEFERRED' : '';
      await sql.raw(`CREATE ${kind} ${t.name}_kept AFTER ${events} ON ${t.table} ${when} FOR EACH ROW EXECUTE FUNCTION ${t.name}_kept()`).execute(db);
    }
  }
  await fillAnalyticsTotals(db);
}

/** Every kept table from the market's rows, set-wise (also the bench's bulk load: bench/scale-market.ts, with the triggers off). */
export async function fillAnalyticsTotals(db: Kysely<any>): Promise<void> {
  const run = (s: string) => sql.raw(s).execute(db);
  await run(`INSERT INTO analytics_sellers (seller, listings, value) SELECT seller, count(*), sum(price_sats) FROM listings WHERE state = 'active' GROUP BY seller`);
  await run(`INSERT INTO analytics_ask_levels (price_sats, listings) SELECT price_sats, count(*) FROM listings WHERE state = 'active' GROUP BY price_sats`);
  const bids = `SELECT o.slot_id AS backing, o.bidder, o.price_sats FROM offers o WHERE ${offerLive('o')}
    UNION ALL SELECT p.funding_set_id, p.bidder, p.price_sats FROM policy_offers p WHERE ${policyLive('p')}`;
  await run(`INSERT INTO analytics_backing_prices (backing, price_sats, offers) SELECT b.backing, b.price_sats, count(*) FROM (${bids}) b GROUP BY b.backing, b.price_sats`);
  await run(`INSERT INTO analytics_backings (backing, price_sats) SELECT backing, max(price_sats) FROM analytics_backing_prices GROUP BY backing`);
  await run(`INSERT INTO analytics_bid_levels (price_sats, backings) SELECT price_sats, count(*) FROM analytics_backings GROUP BY price_sats`);
  await run(`INSERT INTO analytics_bidders (bidder, offers) SELECT b.bidder, count(*) FROM (${bids}) b GROUP BY b.bidder`);
  await run(`DELETE FROM analytics_counts`);
  await run(`INSERT INTO analytics_counts (name, n)
    SELECT 'listings', coalesce(sum(listings), 0) FROM analytics_sellers
    UNION ALL SELECT 'value', coalesce(sum(value), 0) FROM analytics_sellers
    UNION ALL SELECT 'sellers', count(*) FROM analytics_sellers
    UNION ALL SELECT 'backings', count(*) FROM analytics_backings
    UNION ALL SELECT 'bidders', count(*) FROM analytics_bidders`);
  for (const [suffix, c, w] of BUCKETS) {
    await run(`INSERT INTO analytics_sales_${suffix} (${c}, kind, volume, sales) SELECT broadcast_at / ${w}, kind, sum(price_sats), count(*) FROM fills WHERE state = 'confirmed' GROUP BY broadcast_at / ${w}, kind`);
  }
  for (const role of ROLES) {
    await run(`INSERT INTO analytics_sale_last (role, key, last_at) SELECT '${role}', ${role}, max(broadcast_at) FROM fills WHERE state = 'confirmed' GROUP BY ${role}`);
  }
  for (const [suffix, c, w] of BUCKETS) {
    await run(`INSERT INTO analytics_sale_last_${suffix} (role, ${c}, n) SELECT role, last_at / ${w}, count(*) FROM analytics_sale_last GROUP BY role, last_at / ${w}`);
  }
}
