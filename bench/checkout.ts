/**
 * The completion of 10-line carts on the devnet, over HTTP, with real keys: each completion
 * verifies the buyer's signature, merges ten stored seller halves, claims ten listings and the
 * buyer's coin atomically, journals the bytes, and broadcasts them to the devnet (which checks
 * all eleven signatures again). Setup lists the units through the seller routes like a wallet.
 */
import { SigHash } from '@scure/btc-signer';
import type { Context } from '../src/context.js';
import type { Devnet } from '../src/chain/devnet/devnet.js';
import { attachFreshUnit } from './units.js';
import { remoteClient } from './remote-client.js';
import { meterSignatureChecks, type SignatureMeter } from './signature-meter.js';
import { startWalProbe, type WalPages } from './wal-pages.js';
import { signPsbt } from '../test/helpers/market.js';
import { makeWallet, signMessageBip322, type TestWallet } from '../test/helpers/wallets.js';

type Json = Record<string, any>;

export interface CompletionResult {
  carts: number;
  lines: number;
  per_second: number;
  p50: number;
  p99: number;
  mean: number;
  /**
   * The server's CPU (user + system of this process) per completion, ms, p50: the requests come
   * from a client process of its own (remote-client.ts), and the in-process devnet's own work
   * (its relay of the transaction: decode, policy, eleven signature checks, its mempool write)
   * is taken out: the market's work alone.
   */
  cpu_p50: number;
  /** The devnet's share, ms, p50: CPU between entering and leaving its relay calls (nothing else runs meanwhile). */
  devnet_cpu_p50: number;
  /** The market's own signature checks' CPU per completion, ms, p50 (bench/signature-meter.ts), and how many checks. */
  verify_cpu_p50: number;
  verify_checks: number;
  /** BENCH_WAL_PAGES=1 only (bench/wal-pages.ts): the pages each completion wrote, by table and index. */
  wal_pages?: WalPages;
}

/**
 * Counts the CPU spent inside the devnet's relay calls. Completions run one at a time, so
 * while the market awaits the devnet nothing else of this process runs.
 */
function meterDevnet(devnet: Devnet, sig?: SignatureMeter): { take(): number } {
  let spent = 0;
  const d = devnet as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of ['sendRawTransaction', 'submitPackage', 'testMempoolAccept']) {
    const inner = d[name]!.bind(devnet);
    d[name] = async (...args: unknown[]) => {
      const c0 = process.cpuUsage();
      if (sig) sig.devnetBusy = true;
      try {
        return await inner(...args);
      } finally {
        if (sig) sig.devnetBusy = false;
        const c = process.cpuUsage(c0);
        spent += (c.user + c.system) / 1000;
      }
    };
  }
  return {
    take() {
      const s = spent;
      spent = 0;
      return s;
    },
  };
}

/**
 * BENCH_CPU_PROFILE=dir: a V8 CPU profile of the measured completions alone (setup and warm-up
 * left out), written as `<dir>/<label>.cpuprofile` for Chrome's DevTools or speedscope.
 */
async function startProfile(label: string): Promise<{ stop(): Promise<void> }> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return { stop: () => Promise.resolve() };
  const { Session } = await import('node:inspector/promises');
  const { mkdir, writeFile } = await import('node:fs/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // BENCH_CPU_PROFILE_US: the sampling interval (µs); 100 resolves a completion's parts, 500+ perturbs them less.
  await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_CPU_PROFILE_US ?? 100) });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      await mkdir(dir, { recursive: true });
      await writeFile(`${dir}/${label}.cpuprofile`, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * `carts` completions measured after `warmup` more, unmeasured: the first calls of a code path
 * run before V8 optimised it (and its compiler threads count as this process's CPU), which is
 * a cost of starting the process, not of a completion. Setup calls come from addresses of their
 * own (the bench markets trust one proxy hop) and each seller lists at most 10 units, so the
 * per-IP and per-session budgets never meet the bench's own setup, whatever `carts`.
 */
export async function cartCompletionBench(ctx: Context, api: string, carts = 10, lines = 10, label = 'bench', warmup = 0): Promise<CompletionResult> {
  const devnet = ctx.devnet as unknown as Devnet;
  let calls = 0;
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, token?: string) => {
    const n = calls++;
    const r = await fetch(`${api}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { 'x-session-token': token } : {}),
        'x-forwarded-for': `10.66.${(n >> 8) & 255}.${n & 255}`,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const out = { status: r.status, body: (await r.json()) as Json };
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(out.body)}`);
    return out.body.result as Json;
  };
  const signIn = async (w: TestWallet) => {
    const c = await call('POST', '/v1/auth/challenge', { address: w.address });
    return (await call('POST', '/v1/auth/verify', { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message as string) })).token as string;
  };

  // One seller per line of each ten carts (both signing families), one unit per cart from each.
  const total = carts + warmup;
  const sellers = await Promise.all(
    Array.from({ length: lines * Math.ceil(total / 10) }, async (_, j) => {
      const w = makeWallet(j % 2 ? 'p2tr' : 'p2wpkh', `${label}-seller-${j}`);
      return { w, token: await signIn(w) };
    }),
  );
  const units: Array<{ seller: (typeof sellers)[number]; asset: string; txid: string }> = [];
  for (let k = 0; k < total; k++) {
    for (let j = 0; j < lines; j++) {
      const s = sellers[Math.floor(k / 10) * lines + j]!;
      units.push({ seller: s, ...(await attachFreshUnit(devnet, s.w)) });
    }
  }
  await devnet.mine(1);
  await ctx.sync();
  const expires = Math.floor(Date.now() / 1000) + 86_400;
  const listingIds: string[] = [];
  for (const [n, u] of units.entries()) {
    const pf = await call('POST', '/v1/listing-preflights', {
      seller: u.seller.w.address, asset: u.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: { txid: u.txid, vout: 0 }, price_sats: 20_000 + n * 100, idempotency_key: `${label}-${n}`,
    }, u.seller.token);
    const psbt = signPsbt(pf.listing.psbt_hex as string, u.seller.w, [0], SigHash.SINGLE_ANYONECANPAY);
    listingIds.push((await call('POST', `/v1/listing-preflights/${pf.id}/listing`, { psbt_hex: psbt, expires_at: expires }, u.seller.token)).id as string);
  }
  await ctx.sync();

  // One buyer per cart, each quoting its ten listings and signing the quote.
  const signedCarts: Array<{ id: string; token: string; psbt: string }> = [];
  for (let k = 0; k < total; k++) {
    const w = makeWallet('p2wpkh', `${label}-buyer-${k}`);
    // Prices rise by 100 sats a listing, so a long bench's last carts cost more than its first.
    const cost = Array.from({ length: lines }, (_, j) => 20_000 + (k * lines + j) * 100).reduce((a, b) => a + b, 0);
    await devnet.faucet(w.address, Math.max(1_000_000, cost + 500_000));
    const token = await signIn(w);
    const q = await call('POST', '/v1/checkout/quotes', { lines: listingIds.slice(k * lines, (k + 1) * lines).map((listing_id) => ({ listing_id })) }, token);
    signedCarts.push({ id: q.id as string, token, psbt: signPsbt(q.psbt_hex as string, w, q.inputs_to_sign as number[], SigHash.ALL) });
  }

  // The market has read every block (a running market's tip check does within a second): a
  // completion's fresh-unit check then asks the node once, as it would in steady state.
  await ctx.sync();
  const took: number[] = [];
  const cpu: number[] = [];
  const devnetCpu: number[] = [];
  const sig = meterSignatureChecks();
  const verifyCpu: number[] = [];
  let checks = 0;
  const meter = meterDevnet(devnet, sig);
  const client = await remoteClient();
  // The client process's first request opens its connection and warms its fetch.
  await client.request('GET', `${api}/healthz`, {});
  for (const c of signedCarts.slice(0, warmup)) {
    const r = await client.request('POST', `${api}/v1/checkout/quotes/${c.id}/complete`, { 'content-type': 'application/json', 'x-session-token': c.token }, JSON.stringify({ psbt_hex: c.psbt }));
    if (r.status !== 200) throw new Error(`complete ${c.id}: ${r.status} ${r.text}`);
  }
  const wal = await startWalProbe(ctx);
  const prof = await startProfile(label);
  const started = performance.now();
  for (const c of signedCarts.slice(warmup)) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    meter.take();
    sig.take();
    const r = await client.request('POST', `${api}/v1/checkout/quotes/${c.id}/complete`, { 'content-type': 'application/json', 'x-session-token': c.token }, JSON.stringify({ psbt_hex: c.psbt }));
    const used = process.cpuUsage(c0);
    if (r.status !== 200) throw new Error(`complete ${c.id}: ${r.status} ${r.text}`);
    const relay = meter.take();
    const v = sig.take();
    verifyCpu.push(v.ms);
    checks = v.checks;
    cpu.push((used.user + used.system) / 1000 - relay);
    devnetCpu.push(relay);
    took.push(performance.now() - t0);
  }
  await prof.stop();
  const walPages = await wal?.read(carts);
  client.close();
  sig.restore();
  verifyCpu.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  devnetCpu.sort((a, b) => a - b);
  const secs = (performance.now() - started) / 1000;
  took.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    carts,
    lines,
    per_second: round(carts / secs),
    p50: round(percentile(took, 50)),
    p99: round(percentile(took, 99)),
    mean: round(took.reduce((s, x) => s + x, 0) / took.length),
    cpu_p50: round(percentile(cpu, 50)),
    devnet_cpu_p50: round(percentile(devnetCpu, 50)),
    verify_cpu_p50: Math.round(percentile(verifyCpu, 50) * 100) / 100,
    verify_checks: checks,
    ...(walPages ? { wal_pages: walPages } : {}),
  };
}
