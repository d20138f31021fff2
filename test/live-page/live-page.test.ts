/**
 * The live market page at / (issue 17 item 5), in a real browser: Debian's chromium driven by
 * playwright-core, against the app listening on 127.0.0.1 over the devnet. A catalogue
 * collection with three units listed through the seller flow (real keys); the page shows the
 * collections, the book's depth chart and the activity; a sale completed through the API while
 * the page is open appears on it without a reload. Without /usr/bin/chromium the browser test
 * skips (scripts/test.mjs says so); the headers test runs everywhere.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller, type LiveListing, type Seller } from '../helpers/listing.js';
import { complete, newBuyer, quoteOk, signQuote, type Buyer } from '../helpers/checkout.js';
import { newBidder, placeFunded } from '../offers/exact-helpers.js';
import { backend } from '../helpers/store.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** A collection name an attacker might choose: the page must show it as text, never as markup. */
const HOSTILE_NAME = 'Live <b>page</b> & "cards" <img src=x onerror="window.__pwned=1">';

let m: Market;
let base = '';
let alice: Seller;
let bob: Seller;
let carol: Buyer;
const listed: LiveListing[] = [];

before(async () => {
  m = await openMarket();
  alice = await newSeller(m, 'p2wpkh', 'live-page-alice', 2);
  bob = await newSeller(m, 'p2tr', 'live-page-bob');
  await importCatalog(m.ctx.store.db, {
    collections: [
      { slug: 'live-page', name: HOSTILE_NAME },
      { slug: 'quiet', name: 'Quiet corner' },
    ],
    artists: [],
    assets: [
      { asset: alice.asset, collection: 'live-page', max_supply_units: 2, issued_year: 2024, media_kind: 'image' },
      { asset: bob.asset, collection: 'live-page', max_supply_units: 1, issued_year: 2024, media_kind: 'image' },
    ],
  });
  listed.push(await listUnit(m, alice, 40_000), await listUnit(m, alice, 65_000), await listUnit(m, bob, 25_000));
  // The bid side: two funded outputs bidding on the whole collection, one on bob's asset.
  const dave = await newBidder(m);
  await placeFunded(m, dave, 15_000, 2, [{ scope: 'collection', collection: 'live-page' }]);
  await placeFunded(m, await newBidder(m), 20_000, 1, [{ scope: 'asset', asset: bob.asset }]);
  carol = await newBuyer(m, 'p2wpkh', 'live-page-carol');
  await m.mine();
  await m.sync();
  base = await m.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => m.close());

void test('GET / and its assets: CSP with script-src self, no inline code, ETags with 304, versioned assets cached for good', async () => {
  const page = await fetch(`${base}/`);
  assert.equal(page.status, 200);
  assert.match(String(page.headers.get('content-type')), /^text\/html/);
  const csp = String(page.headers.get('content-security-policy'));
  for (const d of ["script-src 'self'", "default-src 'none'", "connect-src 'self'", "style-src 'self'"]) assert.ok(csp.includes(d), `${d} in ${csp}`);
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  const html = await page.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i, 'no inline script, style or handler: the CSP allows none');
  for (const href of ['/docs', '/v1/openapi.json', '/v1/collections', '/healthz', '/readyz']) assert.ok(html.includes(`href="${href}"`), href);

  const etag = String(page.headers.get('etag'));
  const again = await fetch(`${base}/`, { headers: { 'if-none-match': etag } });
  assert.deepEqual([again.status, await again.text()], [304, '']);

  for (const [file, type] of [['market.js', /^text\/javascript/], ['market.css', /^text\/css/]] as const) {
    const url = html.match(new RegExp(`"(/live/${file.replace('.', '\\.')}\\?v=[0-9a-f]{12})"`))?.[1];
    assert.ok(url, `${file} is named with its version`);
    const r = await fetch(`${base}${url}`);
    assert.equal(r.status, 200);
    assert.match(String(r.headers.get('content-type')), type);
    assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    const tag = String(r.headers.get('etag'));
    assert.equal((await fetch(`${base}${url}`, { headers: { 'if-none-match': tag } })).status, 304);
    const stale = await fetch(`${base}/live/${file}?v=000000000000`);
    assert.equal(stale.headers.get('cache-control'), 'no-cache', 'another version is not promised forever');
    assert.equal((await fetch(`${base}/live/${file}`, { method: 'HEAD' })).status, 200);
  }
  const script = await (await fetch(`${base}/live/market.js`)).text();
  assert.doesNotMatch(script, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, 'API strings reach the page as text only');
  assert.doesNotMatch(script, /BTC/, 'every price in sats, never BTC beside sats');
});

/** Marks the document, so a later read proves the page was never reloaded. */
const mark = (page: Page) => page.evaluate(() => ((globalThis as unknown as { __sameDocument: boolean }).__sameDocument = true));
const marked = (page: Page) => page.evaluate(() => (globalThis as unknown as { __sameDocument?: boolean }).__sameDocument === true);

void test('in Chromium: collections, the depth chart and the activity; a sale completed through the API arrives on the stream, and by polling where the stream is refused, without a reload', { skip: !fs.existsSync(CHROMIUM) && `${CHROMIUM} is absent (apt-get install chromium)` }, async () => {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'live-page-chromium-'));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1360, height: 860 },
  });
  const problems: string[] = [];
  const watch = (p: Page, name: string) => {
    p.on('pageerror', (e) => problems.push(`${name}: page error: ${e.message}`));
    p.on('console', (msg) => {
      if (msg.type() === 'error' && /Content.Security.Policy|Refused to/i.test(msg.text())) problems.push(`${name}: CSP: ${msg.text()}`);
    });
  };
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    watch(page, 'stream page');
    // A second page whose stream is refused as a server without one would (404): it must poll.
    const fallback = await browser.newPage();
    watch(fallback, 'polling page');
    await fallback.route('**/v1/stream/events*', (r) => r.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ error: 'not found', code: 'not_found' }) }));
    await Promise.all([page.goto(`${base}/`), fallback.goto(`${base}/`)]);

    // Collections: the hostile name is shown as text; nothing in it became an element.
    const names = page.locator('#collections .name');
    await names.first().waitFor();
    assert.deepEqual(await names.allTextContents(), [HOSTILE_NAME, 'Quiet corner']);
    assert.equal(await page.locator('#collections b, #collections img, #book-name img').count(), 0);
    assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined);
    assert.match(String(await page.locator('#collections [aria-pressed="true"] .meta').textContent()), /^3 listed · floor 25,000 sats$/);

    // The book: three listings at three prices and three funded outputs, drawn as step charts; the activity shows the listings.
    await page.locator('#depth[data-asks="3"] svg path.ask-line').waitFor();
    assert.match(String(await page.locator('#depth svg').textContent()), /Asks · 3 listings.*Bids · 3 funded bids/);
    assert.equal(await page.locator('#fig-floor').textContent(), '25,000 sats');
    assert.deepEqual(await page.locator('#ask-levels tr td:first-child').allTextContents(), ['25,000 sats', '40,000 sats', '65,000 sats']);
    assert.equal(await page.locator('#depth').getAttribute('data-bids'), '3', 'three distinct funded outputs');
    assert.deepEqual(await page.locator('#bid-levels tr').allInnerTexts(), ['20,000 sats\t1\t' + bob.asset, '15,000 sats\t2\tany in collection']);
    assert.equal(await page.locator('#fig-offer').textContent(), '20,000 sats');
    for (const p of [page, fallback]) await p.locator('#activity li[data-kind="listed"]').nth(2).waitFor();
    await page.locator('#status[data-mode="stream"]').waitFor();
    await fallback.locator('#status[data-mode="polling"]').waitFor();
    await Promise.all([mark(page), mark(fallback)]);

    // A sale through the API while both pages are open. The stream page polls nothing: the frame brings it.
    // The same second as the listings (the clock does not move): the page orders by the log's seq, so the sale still tops the list.
    const q = await quoteOk(m, carol, { lines: [{ listing_id: listed[0]!.id }] });
    const done = await complete(m, carol, q.id, signQuote(q, carol.w));
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const answered = Date.now();
    for (const p of [page, fallback]) {
      const sale = p.locator('#activity li[data-kind="sale"]');
      await sale.waitFor({ timeout: 20_000 });
      console.log(`sale on the ${p === page ? 'stream' : 'polling'} page ${Date.now() - answered} ms after the completion answered`);
      assert.match(String(await sale.textContent()), new RegExp(`Sale.*${alice.asset}.*40,000 sats.*pending`));
      assert.equal(await p.locator('#activity li').first().getAttribute('data-kind'), 'sale', 'newest first');
    }
    // The event refreshed the book: the sold ask left it.
    await page.locator('#depth[data-asks="2"]').waitFor({ timeout: 10_000 });
    assert.deepEqual(await page.locator('#ask-levels tr td:first-child').allTextContents(), ['25,000 sats', '65,000 sats']);
    assert.match(String(await page.locator('#depth svg').textContent()), /Asks · 2 listings/);

    // The block confirms it: the same row turns confirmed (the later frame wins; one row per event_id).
    await m.mine();
    await m.sync();
    for (const p of [page, fallback]) {
      await p.locator('#activity li[data-kind="sale"] .state.confirmed').waitFor({ timeout: 20_000 });
      assert.equal(await p.locator('#activity li[data-kind="sale"]').count(), 1);
      assert.equal(await marked(p), true, 'no reload');
    }
    assert.equal(await page.locator('#status').getAttribute('data-mode'), 'stream');

    const shot = path.join(os.tmpdir(), `live-page-${backend}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`live page screenshot: ${shot}`);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
});
