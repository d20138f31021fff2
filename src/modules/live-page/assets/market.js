// The live market page: collections, one collection's book as a depth chart, and the activity
// feed, read from the public API of this origin. Every string from the API reaches the page
// through textContent (or an attribute set with setAttribute), never as markup.
'use strict';

(() => {
  const STREAM_URL = '/v1/stream/events';
  /** The newest entries of the ordered log, oldest first: the page orders by the log's seq (commit order). */
  const FEED_URL = '/v1/events?tail=true&limit=50';
  /** The public feed is edge-cached 15 s; polling faster than that only re-reads the cache. */
  const POLL_MS = 5000;
  /** After the stream refuses (not deployed, resync, limit), poll and try it again this much later. */
  const STREAM_RETRY_MS = 60000;
  const MAX_ROWS = 60;
  const RETRACTED = 'event_retracted';
  const KINDS = ['sale', 'listed', 'delisted', 'offer_placed', 'offer_ended', 'collection_offer_placed', 'collection_offer_ended', RETRACTED];
  const KIND_LABEL = {
    sale: 'Sale',
    listed: 'Listed',
    delisted: 'Delisted',
    offer_placed: 'Offer',
    offer_ended: 'Offer ended',
    collection_offer_placed: 'Collection offer',
    collection_offer_ended: 'Collection offer ended',
  };
  const SVG = 'http://www.w3.org/2000/svg';

  const state = {
    collections: [],
    selected: null,
    book: null,
    /** event_id → {event, node, seq}: seq is where the event first entered the log (its row's place). */
    events: new Map(),
    /** Log entries already applied (a head re-read and the stream overlap). */
    applied: new Set(),
    lastSeq: null,
    pollTimer: null,
    stream: null,
    refreshTimer: null,
  };

  const $ = (id) => document.getElementById(id);

  /** An element with a class and text set as text. */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  const grouped = (n) => Number(n).toLocaleString('en-US');
  /** Every price on the page is in sats, the API's unit, with no second unit beside it. */
  function sats(n) {
    if (n === null || n === undefined) return '–';
    return `${grouped(n)} sats`;
  }
  /** Axis ticks: sats, shortened (the axis title says sats). */
  function satsShort(n) {
    if (n >= 1e6) return `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 2 })}M`;
    if (n >= 1e3) return `${(n / 1e3).toLocaleString('en-US', { maximumFractionDigits: 1 })}k`;
    return grouped(n);
  }
  /** "1 listing", "2 listings": a count with its noun. */
  const count = (n, one, many = `${one}s`) => `${grouped(n)} ${Number(n) === 1 ? one : many}`;
  const shortAddress = (a) => (a && a.length > 16 ? `${a.slice(0, 8)}…${a.slice(-5)}` : a || '');
  const when = (at) =>
    new Date(at * 1000).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

  /**
   * Public reads carry max-age for edge caches; a live page revalidates instead of trusting its
   * own HTTP cache (an unchanged answer is a 304 on its ETag, and the server's shared cache serves it).
   */
  async function api(path) {
    const r = await fetch(path, { headers: { accept: 'application/json' }, cache: 'no-cache' });
    if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
    return r.json();
  }

  function setMode(mode, text) {
    $('status').dataset.mode = mode;
    $('status-text').textContent = text;
  }

  // ---- collections -------------------------------------------------------------------------

  async function loadCollections() {
    const page = await api('/v1/collections?limit=100');
    state.collections = page.result;
    if (!state.selected || !state.collections.some((c) => c.slug === state.selected)) {
      const fromHash = new URLSearchParams(location.hash.slice(1)).get('collection');
      const pick = state.collections.find((c) => c.slug === fromHash) || state.collections.find((c) => c.listed > 0) || state.collections[0];
      state.selected = pick ? pick.slug : null;
    }
    renderCollections();
  }

  function renderCollections() {
    const list = $('collections');
    list.replaceChildren(
      ...state.collections.map((c) => {
        const button = el('button', 'collection');
        button.type = 'button';
        button.dataset.slug = c.slug;
        button.setAttribute('aria-pressed', String(c.slug === state.selected));
        button.append(el('span', 'name', c.name), el('span', 'meta', `${grouped(c.listed)} listed · floor ${c.floor_sats === null ? '–' : sats(c.floor_sats)}`));
        button.addEventListener('click', () => select(c.slug));
        const item = el('li');
        item.append(button);
        return item;
      }),
    );
    $('collections-empty').hidden = state.collections.length > 0;
  }

  function select(slug) {
    state.selected = slug;
    history.replaceState(null, '', `#collection=${encodeURIComponent(slug)}`);
    renderCollections();
    loadBook().catch(report);
  }

  // ---- the book ----------------------------------------------------------------------------

  async function loadBook() {
    const slug = state.selected;
    if (!slug) return renderBook(null);
    const page = await api(`/v1/collections/${encodeURIComponent(slug)}/book`);
    if (slug === state.selected) renderBook(page.result);
  }

  /** Asks: listings per price, cumulative from the floor up. */
  function askSteps(book) {
    let total = 0;
    return book.asks.map((a) => ({ price: a.price_sats, count: a.depth, total: (total += a.depth) }));
  }

  /**
   * Bids: distinct funding outputs, each at the best price it bids. One output may back several
   * offers (alternatives), and it can fill only one of them, so it counts once.
   */
  function bidSteps(book) {
    const best = new Map();
    for (const o of book.offers) best.set(o.funding_slot_id, Math.max(best.get(o.funding_slot_id) || 0, o.price_sats));
    const byPrice = new Map();
    for (const p of best.values()) byPrice.set(p, (byPrice.get(p) || 0) + 1);
    let total = 0;
    return [...byPrice.entries()].sort((a, b) => b[0] - a[0]).map(([price, count]) => ({ price, count, total: (total += count) }));
  }

  function renderBook(book) {
    state.book = book;
    const collection = state.collections.find((c) => c.slug === state.selected);
    $('book-name').textContent = collection ? collection.name : '';
    const asks = book ? askSteps(book) : [];
    const bids = book ? bidSteps(book) : [];
    $('fig-floor').textContent = asks.length ? sats(asks[0].price) : '–';
    $('fig-offer').textContent = book && book.best_offer_sats !== null ? sats(book.best_offer_sats) : '–';
    $('fig-asks').textContent = asks.length ? grouped(asks[asks.length - 1].total) + (book.listings_truncated ? '+' : '') : '0';
    $('fig-bids').textContent = bids.length ? grouped(bids[bids.length - 1].total) + (book.offers_truncated ? '+' : '') : '0';
    drawDepth(asks, bids);

    const askRows = (book ? book.asks.slice(0, 8) : []).map((a) => {
      const first = a.listings[0];
      return row([sats(a.price_sats), grouped(a.depth), first ? first.asset_longname || first.asset : '']);
    });
    $('ask-levels').replaceChildren(...(askRows.length ? askRows : [none('No listings')]));
    const bidRows = (book ? book.offer_levels.slice(0, 8) : []).map((l) => row([sats(l.price_sats), grouped(l.funded_slots), targetOf(l)]));
    $('bid-levels').replaceChildren(...(bidRows.length ? bidRows : [none('No funded bids')]));
  }

  function row(cells) {
    const tr = el('tr');
    tr.append(...cells.map((c, i) => {
      const td = el('td', ['price', 'count', 'what'][i], c);
      if (i === 2) td.title = String(c);
      return td;
    }));
    return tr;
  }

  function none(text) {
    const tr = el('tr', 'none');
    const td = el('td', null, text);
    td.colSpan = 3;
    tr.append(td);
    return tr;
  }

  function targetOf(level) {
    if (level.kind === 'asset') return level.asset || 'one asset';
    const traits = [];
    if (level.max_supply_units !== null) traits.push(`supply ≤ ${level.max_supply_units}`);
    if (level.min_supply_units !== null) traits.push(`supply ≥ ${level.min_supply_units}`);
    if (level.issued_year !== null) traits.push(`issued ${level.issued_year}`);
    if (level.series !== null) traits.push(`series ${level.series}`);
    if (level.artist !== null) traits.push(`by ${level.artist}`);
    return traits.length ? traits.join(', ') : 'any in collection';
  }

  /** Nice round ticks over [lo, hi]: 1-2-5 steps (on a log scale, 1-2-5 per decade). */
  function ticks(lo, hi, log) {
    const out = [];
    if (log) {
      for (let d = Math.pow(10, Math.floor(Math.log10(lo))); d <= hi; d *= 10) for (const m of [1, 2, 5]) if (d * m >= lo && d * m <= hi) out.push(d * m);
      return out.length > 7 ? out.filter((_, i) => i % 2 === 0) : out;
    }
    const raw = (hi - lo) / 5;
    const mag = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || mag * 10;
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(v);
    return out;
  }

  function drawDepth(asks, bids) {
    const box = $('depth');
    const width = Math.max(320, Math.round(box.clientWidth || 640));
    const height = 260;
    const pad = { left: 44, right: 16, top: 34, bottom: 34 };
    const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', class: 'depth-chart' });
    const label = `Depth chart: ${count(asks.length ? asks[asks.length - 1].total : 0, 'listing')} from ${asks.length ? sats(asks[0].price) : 'none'}; ${count(bids.length ? bids[bids.length - 1].total : 0, 'funded bid')} up to ${bids.length ? sats(bids[0].price) : 'none'}`;
    chart.append(svg('title', {}, label));
    box.dataset.asks = String(asks.length ? asks[asks.length - 1].total : 0);
    box.dataset.bids = String(bids.length ? bids[bids.length - 1].total : 0);
    if (!asks.length && !bids.length) {
      chart.append(svg('text', { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'empty-text' }, 'No asks or bids in this collection right now.'));
      box.replaceChildren(chart);
      return;
    }
    const prices = [...asks, ...bids].map((s) => s.price);
    let lo = Math.min(...prices);
    let hi = Math.max(...prices);
    if (lo === hi) {
      lo *= 0.8;
      hi *= 1.2;
    }
    const log = hi / lo > 8;
    const f = log ? Math.log10 : (v) => v;
    const span = f(hi) - f(lo);
    const d0 = f(lo) - span * 0.06;
    const d1 = f(hi) + span * 0.06;
    const x = (p) => pad.left + ((f(p) - d0) / (d1 - d0)) * (width - pad.left - pad.right);
    const top = Math.max(asks.length ? asks[asks.length - 1].total : 0, bids.length ? bids[bids.length - 1].total : 0);
    const yMax = Math.max(2, Math.ceil(top * 1.15));
    const y = (v) => height - pad.bottom - (v / yMax) * (height - pad.top - pad.bottom);
    const xLeft = pad.left;
    const xRight = width - pad.right;

    // Grid and axes.
    const yTicks = ticks(0, yMax, false).filter((v) => Number.isInteger(v));
    for (const v of yTicks) {
      chart.append(svg('line', { x1: xLeft, x2: xRight, y1: y(v), y2: y(v), class: 'grid' }));
      chart.append(svg('text', { x: xLeft - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, grouped(v)));
    }
    const unlog = (v) => (log ? Math.pow(10, v) : v);
    for (const p of ticks(unlog(d0), unlog(d1), log)) {
      chart.append(svg('line', { x1: x(p), x2: x(p), y1: height - pad.bottom, y2: height - pad.bottom + 4, class: 'axis' }));
      chart.append(svg('text', { x: x(p), y: height - pad.bottom + 16, 'text-anchor': 'middle', class: 'tick' }, satsShort(p)));
    }
    chart.append(svg('line', { x1: xLeft, x2: xRight, y1: y(0), y2: y(0), class: 'axis' }));
    chart.append(svg('text', { x: xRight, y: height - 4, 'text-anchor': 'end', class: 'axis-title' }, `price${log ? ' (log scale)' : ''}, sats`));

    // Asks step up to the right from the floor; bids step up to the left from the best bid.
    const stepPath = (steps, edge) => {
      let d = `M ${x(steps[0].price)} ${y(0)}`;
      steps.forEach((s, i) => {
        d += ` L ${x(s.price)} ${y(i ? steps[i - 1].total : 0)} L ${x(s.price)} ${y(s.total)}`;
      });
      const last = steps[steps.length - 1];
      d += ` L ${edge} ${y(last.total)}`;
      return { line: d, area: `${d} L ${edge} ${y(0)} Z` };
    };
    for (const [steps, edge, cls] of [
      [bids, xLeft, 'bid'],
      [asks, xRight, 'ask'],
    ]) {
      if (!steps.length) continue;
      const p = stepPath(steps, edge);
      chart.append(svg('path', { d: p.area, class: `${cls}-area` }), svg('path', { d: p.line, class: `${cls}-line` }));
      const best = steps[0];
      chart.append(svg('circle', { cx: x(best.price), cy: y(best.total), r: 3.5, class: `${cls}-dot` }));
    }
    // Legend.
    const legend = [
      ['ask', `Asks · ${count(asks.length ? asks[asks.length - 1].total : 0, 'listing')}`],
      ['bid', `Bids · ${count(bids.length ? bids[bids.length - 1].total : 0, 'funded bid')}`],
    ];
    legend.forEach(([cls, text], i) => {
      chart.append(svg('rect', { x: xLeft + i * 170, y: 6, width: 10, height: 10, rx: 2, class: `${cls}-swatch` }));
      chart.append(svg('text', { x: xLeft + 16 + i * 170, y: 15, class: 'legend' }, text));
    });
    box.replaceChildren(chart);
  }

  // ---- activity ----------------------------------------------------------------------------

  /** Newest first in the log's order (commit order): a sale always sits above its own listing, whatever their seconds. */
  const order = (a, b) => b.seq - a.seq;

  function collectionName(slug) {
    const known = state.collections.find((c) => c.slug === slug);
    return known ? known.name : slug || '';
  }

  function renderEvent(ev, node) {
    node.className = `event kind-${KIND_LABEL[ev.kind] ? ev.kind : 'other'}`;
    node.setAttribute('data-event-id', ev.event_id);
    node.setAttribute('data-kind', ev.kind);
    const head = el('div', 'event-head');
    head.append(el('span', 'badge', KIND_LABEL[ev.kind] || ev.kind), el('span', 'asset', ev.asset_longname || ev.asset || collectionName(ev.collection)), el('span', 'price', sats(ev.price_sats)));
    const parties = [];
    if (ev.kind === 'sale') parties.push(`${shortAddress(ev.seller)} → ${shortAddress(ev.buyer)}`);
    else if (ev.seller) parties.push(`by ${shortAddress(ev.seller)}`);
    else if (ev.bidder) parties.push(`by ${shortAddress(ev.bidder)}`);
    if (ev.reason) parties.push(ev.reason);
    const tail = el('div', 'event-tail');
    const time = el('time', null, when(ev.at));
    time.dateTime = new Date(ev.at * 1000).toISOString();
    tail.append(time, el('span', 'who', parties.join(' · ')));
    if (ev.kind === 'sale') tail.append(el('span', ev.confirmed_at ? 'state confirmed' : 'state pending', ev.confirmed_at ? 'confirmed' : 'pending'));
    node.replaceChildren(head, tail);
  }

  /**
   * A reorg or a released settlement withdrew an event: drop its row. What the subject is now (a
   * sale back to pending, say) follows in the log as entries of its own.
   */
  function retract(ev) {
    const known = state.events.get(ev.retracts);
    if (known) {
      known.node.remove();
      state.events.delete(ev.retracts);
    }
  }

  /** Adds or updates one event (dedupe on event_id); `live` marks it new and refreshes the market figures. */
  function accept(ev, live) {
    if (!ev || typeof ev.event_id !== 'string' || typeof ev.at !== 'number' || typeof ev.seq !== 'number') return;
    // Log entries apply once each, in seq order: a re-read of the head skips what the stream brought.
    if (state.applied.has(ev.seq)) return;
    state.applied.add(ev.seq);
    if (state.lastSeq === null || ev.seq > state.lastSeq) state.lastSeq = ev.seq;
    if (ev.kind === RETRACTED) return typeof ev.retracts === 'string' ? retract(ev) : undefined;
    const known = state.events.get(ev.event_id);
    if (known) {
      // A later entry of the same event (a sale confirmed, an ask repriced) updates its row in place.
      if (JSON.stringify(known.event) === JSON.stringify(ev)) return;
      known.event = ev;
      renderEvent(ev, known.node);
    } else {
      const node = el('li');
      renderEvent(ev, node);
      state.events.set(ev.event_id, { event: ev, node, first: ev });
      const list = $('activity');
      // The list stays in the feed's order (newest first): a late event lands where it belongs.
      const before = [...list.children].find((child) => order(ev, state.events.get(child.getAttribute('data-event-id')).first) < 0) || null;
      list.insertBefore(node, before);
      if (live) node.classList.add('fresh');
      while (list.children.length > MAX_ROWS) {
        const gone = list.lastElementChild;
        state.events.delete(gone.getAttribute('data-event-id'));
        gone.remove();
      }
    }
    $('activity-empty').hidden = state.events.size > 0;
    if (live) scheduleRefresh();
  }

  /** Several events in a burst make one refresh of the collections and the book. */
  function scheduleRefresh() {
    clearTimeout(state.refreshTimer);
    state.refreshTimer = setTimeout(() => {
      loadCollections()
        .then(loadBook)
        .catch(report);
    }, 500);
  }

  async function readHead(live) {
    const page = await api(FEED_URL);
    for (const ev of page.result) accept(ev, live);
    if ($('status').dataset.mode === 'offline') showTransport();
  }

  function showTransport() {
    if (state.pollTimer) setMode('polling', `Live · polling every ${POLL_MS / 1000} s`);
    else if (state.stream && state.stream.readyState === EventSource.OPEN) setMode('stream', 'Live');
  }

  // ---- push, or polling where the stream is not available ---------------------------------

  function startPolling() {
    if (state.pollTimer) return;
    state.pollTimer = setInterval(() => readHead(true).catch(report), POLL_MS);
    showTransport();
  }

  function stopPolling() {
    clearInterval(state.pollTimer);
    state.pollTimer = null;
  }

  function openStream() {
    if (typeof EventSource !== 'function') return startPolling();
    const url = state.lastSeq === null ? STREAM_URL : `${STREAM_URL}?after=${state.lastSeq}`;
    const stream = new EventSource(url);
    state.stream = stream;
    const onFrame = (e) => {
      let ev;
      try {
        ev = JSON.parse(e.data);
      } catch {
        return;
      }
      accept(ev, true);
    };
    for (const kind of KINDS) stream.addEventListener(kind, onFrame);
    stream.addEventListener('message', onFrame);
    stream.addEventListener('open', () => {
      stopPolling();
      showTransport();
      // Whatever happened between the last read and the stream's start: re-read the head, deduped.
      readHead(true).catch(report);
    });
    stream.addEventListener('error', () => {
      if (stream.readyState !== EventSource.CLOSED) return setMode('reconnecting', 'Reconnecting…');
      // A refusal (no stream on this server, a position too old to resume, a limit): the
      // browser will not retry it. Poll meanwhile, and try again from the head later.
      stream.close();
      state.stream = null;
      state.lastSeq = null;
      startPolling();
      setTimeout(openStream, STREAM_RETRY_MS);
    });
  }

  function report(e) {
    setMode('offline', 'Offline · retrying');
    console.warn(e instanceof Error ? e.message : e);
  }

  async function start() {
    let resizeTimer = null;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => renderBook(state.book), 150);
    });
    await Promise.all([loadCollections().then(loadBook), readHead(false)]).catch(report);
    $('activity-empty').hidden = state.events.size > 0;
    openStream();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void start());
  else void start();
})();
