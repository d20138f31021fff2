/**
 * The `scale-live` group of `npm run bench` (#33, items 2-4): tip to market, the mainnet-sized
 * indexer pass, ten thousand stream viewers, and the CPU of a completion beside its signature
 * checks. `npm run -s bench -- --json --only scale-live` runs this group alone; the full run
 * runs it after everything else. Each figure is returned with its bound beside it (`…_bound…`).
 */
import { ownMarket } from './own-market.js';
import { say, printTable } from './http-load.js';
import { tipToBookBench, TIP_TO_BOOK_BOUNDS } from './tip-to-book.js';
import { coreWorld, coreWorldSkipped } from './tip-to-book-worlds.js';
import { cartCompletionBench } from './checkout.js';
import { FANOUT_P99_BOUND_MS, streamScaleBench } from './stream-10k.js';
import { INDEXER_BOUNDS, mainnetIndexerBench } from './indexer-mainnet.js';
import { WRITE_CLIENTS, writeLoadBench, type WriteFigures } from './write-load.js';

type Figures = Record<string, number | string | boolean>;

/** Completions measured for the CPU figures (carts of ten lines: half as many). 60: the p50 of 15 ten-line carts moved by ±1.5 ms between runs on this machine. */
const CPU_CARTS = Number(process.env.BENCH_CPU_CARTS ?? 60);

export const CHECKOUT_CPU_BOUNDS = { rest_vs_verify_max: 2, cart10_cpu_ms: 5 };

/** The sub-groups of scale-live, each runnable alone (`--only stream-10k`, …), in the order the group runs them. */
export const SCALE_LIVE_PARTS: Record<string, () => Promise<Figures>> = {
  'tip-to-book': tipToBookPart,
  'stream-10k': streamPart,
  'checkout-cpu': checkoutCpuPart,
  writes: writesPart,
  'indexer-mainnet': indexerPart,
};

export async function scaleLiveBench(): Promise<Figures> {
  const f: Figures = {};
  for (const part of Object.values(SCALE_LIVE_PARTS)) Object.assign(f, await part());
  return f;
}

async function tipToBookPart(): Promise<Figures> {
  const f: Figures = {};
  say.line('\n# Tip to market: one block confirming a sale, an attach and a spent slot → the book, the owner feed and the public feed (devnet, jobs running, tip check 1 s, long poll 10 min)\n');
  const tip = await tipToBookBench(Number(process.env.BENCH_TIP_ROUNDS ?? 20));
  printTable([
    { measure: `block on the node → all three shown, p50 of ${tip.rounds} (tip_to_book_ms)`, ms: tip.p50_ms, bound: `< ${TIP_TO_BOOK_BOUNDS.p50_ms}` },
    { measure: 'the same, p99 (tip_to_book_p99_ms)', ms: tip.p99_ms, bound: `< ${TIP_TO_BOOK_BOUNDS.p99_ms}` },
    { measure: 'the same, slowest', ms: tip.max_ms, bound: '' },
  ]);
  f.tip_to_book_ms = tip.p50_ms;
  f.tip_to_book_bound_ms = TIP_TO_BOOK_BOUNDS.p50_ms;
  f.tip_to_book_p99_ms = tip.p99_ms;
  f.tip_to_book_p99_bound_ms = TIP_TO_BOOK_BOUNDS.p99_ms;
  f.tip_to_book_max_ms = tip.max_ms;
  f.tip_check_interval_ms = tip.tip_check_ms;

  // The same on a real Bitcoin Core (the real-Core lane's node) where BITCOIND names one.
  const skipped = coreWorldSkipped();
  if (skipped) {
    say.line(`\nTip to market on a real Bitcoin Core: skipped (${skipped})`);
    f.tip_to_book_core_skipped = skipped;
    return f;
  }
  for (const zmq of [false, true]) {
    const name = zmq ? 'tip_to_book_core_zmq' : 'tip_to_book_core';
    say.line(`\n# The same on a real Bitcoin Core (BITCOIND; CHAIN=bitcoin-core, Counterparty the ledger following the node)${zmq ? ", with Core's ZMQ hashblock (BITCOIN_ZMQ_HASHBLOCK)" : ', the tip check alone'}\n`);
    const core = await tipToBookBench(Number(process.env.BENCH_TIP_ROUNDS ?? 20), 1_000, (env) => coreWorld(env, zmq));
    printTable([
      { measure: `block on Core → all three shown, p50 of ${core.rounds} (${name}_ms)`, ms: core.p50_ms, bound: `< ${TIP_TO_BOOK_BOUNDS.p50_ms}` },
      { measure: `the same, p99 (${name}_p99_ms)`, ms: core.p99_ms, bound: `< ${TIP_TO_BOOK_BOUNDS.p99_ms}` },
      { measure: 'the same, slowest', ms: core.max_ms, bound: '' },
    ]);
    f[`${name}_ms`] = core.p50_ms;
    f[`${name}_p99_ms`] = core.p99_ms;
    f[`${name}_max_ms`] = core.max_ms;
  }
  return f;
}

async function streamPart(): Promise<Figures> {
  const f: Figures = {};

  say.line('\n# Ten thousand viewers: SSE clients on the public stream in processes of their own; an event from its commit to its frame on the last client\n');
  const st = await streamScaleBench();
  const two = 'skipped' in st.two ? undefined : st.two;
  printTable([
    { measure: `one instance (SQLite), ${st.one.clients} clients, p50 of ${st.one.events} events`, ms: st.one.p50_ms, bound: '' },
    { measure: '  p99 (stream_10k_fanout_p99_ms)', ms: st.one.p99_ms, bound: `< ${FANOUT_P99_BOUND_MS}` },
    { measure: '  server memory per connection, KiB (stream_rss_per_client_kb)', ms: st.one.rss_per_client_kb ?? 'n/a', bound: '' },
    { measure: '  server CPU per event (stream_10k_server_cpu_ms)', ms: st.one.server_cpu_ms_per_event ?? 'n/a', bound: '' },
    ...(two
      ? [
          { measure: `two instances (PostgreSQL), ${two.clients} clients split, p50`, ms: two.p50_ms, bound: '' },
          { measure: '  p99 (stream_20k_2i_fanout_p99_ms)', ms: two.p99_ms, bound: `< ${FANOUT_P99_BOUND_MS}` },
          { measure: '  server memory per connection, KiB', ms: two.rss_per_client_kb ?? 'n/a', bound: '' },
          { measure: '  both servers\' CPU per event (stream_20k_2i_server_cpu_ms)', ms: two.server_cpu_ms_per_event ?? 'n/a', bound: '' },
        ]
      : [{ measure: `two instances: skipped (${(st.two as { skipped: string }).skipped})`, ms: '', bound: '' }]),
  ]);
  f.stream_10k_clients = st.one.clients;
  f.stream_10k_fanout_p50_ms = st.one.p50_ms;
  f.stream_10k_fanout_p99_ms = st.one.p99_ms;
  f.stream_fanout_p99_bound_ms = FANOUT_P99_BOUND_MS;
  if (st.one.rss_per_client_kb !== null) f.stream_rss_per_client_kb = st.one.rss_per_client_kb;
  if (st.one.server_cpu_ms_per_event !== null) f.stream_10k_server_cpu_ms = st.one.server_cpu_ms_per_event;
  if (two) {
    f.stream_20k_2i_fanout_p50_ms = two.p50_ms;
    f.stream_20k_2i_fanout_p99_ms = two.p99_ms;
    if (two.rss_per_client_kb !== null) f.stream_rss_per_client_kb_2i = two.rss_per_client_kb;
    if (two.server_cpu_ms_per_event !== null) f.stream_20k_2i_server_cpu_ms = two.server_cpu_ms_per_event;
  } else f.stream_20k_2i_skipped = (st.two as { skipped: string }).skipped;
  return f;
}

async function checkoutCpuPart(): Promise<Figures> {
  const f: Figures = {};

  say.line('\n# A completion\'s market CPU beside its signature checks\' CPU (server side, client in its own process, the devnet\'s relay taken out)\n');
  // A market each: one IP's sign-ins (60 a minute) cover one bench's wallets, not both.
  // Measured after unmeasured ones (cartCompletionBench: the first calls run unoptimised code).
  const completions = async (lines: number, carts: number, warmup: number) => {
    const market = await ownMarket();
    try {
      return await cartCompletionBench(market.ctx, market.api, carts, lines, `live-cart${lines}`, warmup);
    } finally {
      await market.close();
    }
  };
  const one = await completions(1, CPU_CARTS, 20);
  const ten = await completions(10, Math.ceil(CPU_CARTS / 2), 10);
  const rest = Math.round((one.cpu_p50 - one.verify_cpu_p50) * 100) / 100;
  const ratio = Math.round((rest / one.verify_cpu_p50) * 100) / 100;
  // The ten-line CPU in its own signature checks: this shared machine's speed moves by up to 2×
  // from one session to the next (a check 55 to 100 µs), and both sides move with it.
  const tenVsVerify = Math.round((ten.cpu_p50 / ten.verify_cpu_p50) * 100) / 100;
  printTable([
    { measure: `checkout of 1 line: market CPU p50 of ${one.carts} after ${20} unmeasured (checkout1_cpu_ms)`, ms: one.cpu_p50, bound: '' },
    { measure: `  its ${one.verify_checks} signature checks (checkout1_verify_cpu_ms)`, ms: one.verify_cpu_p50, bound: '' },
    { measure: '  the rest (parse, SQL, journal, relay) ÷ the checks (checkout1_rest_vs_verify)', ms: ratio, bound: `≤ ${CHECKOUT_CPU_BOUNDS.rest_vs_verify_max}` },
    { measure: `checkout of 10 lines: market CPU p50 (cart10_cpu_ms; ${ten.verify_checks} checks: ${ten.verify_cpu_p50} ms)`, ms: ten.cpu_p50, bound: `< ${CHECKOUT_CPU_BOUNDS.cart10_cpu_ms}` },
    { measure: '  the same ÷ its checks\' CPU (cart10_cpu_vs_verify: the machine\'s speed divided out)', ms: tenVsVerify, bound: '' },
  ]);
  f.checkout1_cpu_ms = one.cpu_p50;
  f.checkout1_verify_cpu_ms = one.verify_cpu_p50;
  f.checkout1_verify_checks = one.verify_checks;
  f.checkout1_rest_vs_verify = ratio;
  f.checkout1_rest_vs_verify_bound = CHECKOUT_CPU_BOUNDS.rest_vs_verify_max;
  f.cart10_cpu_ms_scale = ten.cpu_p50;
  f.cart10_verify_cpu_ms = ten.verify_cpu_p50;
  f.cart10_cpu_vs_verify = tenVsVerify;
  f.cart10_cpu_bound_ms = CHECKOUT_CPU_BOUNDS.cart10_cpu_ms;
  // BENCH_WAL_PAGES=1: a diagnosis of the pages each completion writes (its CPU figures above are then not comparable).
  for (const [name, r] of [['checkout1', one], ['cart10', ten]] as const) {
    if (!r.wal_pages) continue;
    say.line(`\n${name}: ${r.wal_pages.per_completion} WAL pages per completion (automatic checkpoint off while measured), by owner:`);
    say.line(r.wal_pages.by_owner.map((o) => `${o.name} ${o.pages}`).join(', '));
    f[`${name}_wal_pages`] = r.wal_pages.per_completion;
  }
  return f;
}

async function writesPart(): Promise<Figures> {
  const f: Figures = {};
  say.line(`\n# Writes per second on distinct items, ${WRITE_CLIENTS} concurrent clients in a process of their own, \`serve\` processes (the devnet in its own), beside one core's signature-check rate\n`);
  const w = await writeLoadBench(undefined, (line) => say.line(`  ${line}`));
  f.signature_checks_per_s = w.signature_checks_per_s;
  const rows: Array<Record<string, string | number>> = [{ measure: 'signature checks per second, one core, this run (signature_checks_per_s)', 'per s': w.signature_checks_per_s, 'server cpu ms each': '', 'checks each': '' }];
  const put = (suffix: string, x: WriteFigures | { skipped: string }, label: string) => {
    if ('skipped' in x) {
      rows.push({ measure: `${label}: skipped (${x.skipped})`, 'per s': '', 'server cpu ms each': '', 'checks each': '' });
      f[`writes${suffix}_skipped`] = x.skipped;
      return;
    }
    rows.push({ measure: `${label}: one-line checkouts (checkout1_per_s${suffix})`, 'per s': x.checkout1.per_s, 'server cpu ms each': x.checkout1.server_cpu_ms, 'checks each': 2 });
    rows.push({ measure: `${label}: one-slot bid placements (bid_place_per_s${suffix})`, 'per s': x.bid_place.per_s, 'server cpu ms each': x.bid_place.server_cpu_ms, 'checks each': 1 });
    f[`checkout1_per_s${suffix}`] = x.checkout1.per_s;
    f[`checkout1_server_cpu_ms${suffix}`] = x.checkout1.server_cpu_ms;
    f[`bid_place_per_s${suffix}`] = x.bid_place.per_s;
    f[`bid_place_server_cpu_ms${suffix}`] = x.bid_place.server_cpu_ms;
    f[`writes_timed${suffix}`] = x.checkout1.writes;
  };
  put('', w.sqlite, 'SQLite, one instance');
  put('_pg_1i', w.pg_1i, 'PostgreSQL, one instance');
  put('_pg_2i', w.pg_2i, 'PostgreSQL, two instances');
  printTable(rows);
  return f;
}

async function indexerPart(): Promise<Figures> {
  const f: Figures = {};
  say.line('\n# The indexer on mainnet-sized blocks (devnet block builder, the real indexer and every watcher, SQLite)\n');
  const market = await ownMarket();
  let r;
  try {
    r = await mainnetIndexerBench(market.ctx);
  } finally {
    await market.close();
  }
  printTable([
    { measure: `one block of ${r.txs} transactions, ${r.counterparty_txs} Counterparty (indexer_mainnet_block_ms)`, value: r.block_ms, bound: `< ${INDEXER_BOUNDS.block_ms}` },
    { measure: '  its CPU, ms (indexer_mainnet_block_cpu_ms)', value: r.block_cpu_ms, bound: '' },
    { measure: `a day of such blocks caught up, s (indexer_day_catchup_s; ${r.day_blocks} blocks timed, scaled to 144)`, value: r.day_catchup_s, bound: `< ${INDEXER_BOUNDS.day_s}` },
  ]);
  f.indexer_mainnet_block_ms = r.block_ms;
  f.indexer_mainnet_block_bound_ms = INDEXER_BOUNDS.block_ms;
  f.indexer_mainnet_block_cpu_ms = r.block_cpu_ms;
  f.indexer_day_catchup_s = r.day_catchup_s;
  f.indexer_day_catchup_bound_s = INDEXER_BOUNDS.day_s;
  f.indexer_day_blocks_timed = r.day_blocks;
  return f;
}
