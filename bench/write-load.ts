/**
 * Write throughput (#33 item 4): `checkout1_per_s` (one-line checkouts of distinct listings) and
 * `bid_place_per_s` (one-slot placements on distinct assets), 32 concurrent clients in a process
 * of their own, against real `serve` processes (test/helpers/crash.ts's rig: the devnet in its own
 * process as Bitcoin Core would be): on SQLite, and on PostgreSQL with one and two instances
 * (`_pg_1i`, `_pg_2i`; with two, the requests alternate between them). Everything a write needs
 * (units attached and listed, buyers funded and their quotes signed; bidders funded and their
 * funding transactions signed) is made first; only the writes are timed. Beside each rate: the
 * servers' CPU per write (/proc), and the peer measured in this same run: how many signature
 * checks one core does per second (`signature_checks_per_s`), so `checks per write ÷ that rate`
 * is the floor a write's CPU could reach.
 */
import { SigHash, Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { secpBackend } from '../src/bitcoin/secp.js';
import { attachOutputScript } from '../src/counterparty/attach-detach.js';
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import { crashRig, until, type CrashRig, type Market } from '../test/helpers/crash.js';
import { clusterEnv } from '../test/helpers/cluster.js';
import { pgUrl } from '../test/helpers/store.js';
import { buildTx } from '../test/helpers/devnet.js';
import { signPsbt } from '../test/helpers/market.js';
import { makeWallet, signMessageBip322, type TestWallet } from '../test/helpers/wallets.js';
import { forkScript } from './remote-client.js';
import { unreachable } from './stream-cluster.js';
import { cpuOf } from './stream-10k.js';

type Json = Record<string, any>;

export const WRITE_CLIENTS = 32;

const LOADER = `
process.on('message', async (m) => {
  const out = { statuses: {}, errors: [] };
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const k = next++;
      if (k >= m.reqs.length) return;
      const r = m.reqs[k];
      try {
        const res = await fetch(r.url, { method: 'POST', headers: r.headers, body: r.body });
        const text = await res.text();
        out.statuses[res.status] = (out.statuses[res.status] || 0) + 1;
        if (res.status !== 200 && out.errors.length < 3) out.errors.push(res.status + ' ' + text.slice(0, 300));
      } catch (e) {
        out.statuses[0] = (out.statuses[0] || 0) + 1;
        if (out.errors.length < 3) out.errors.push(String(e));
      }
    }
  };
  await Promise.all(Array.from({ length: m.concurrency }, worker));
  out.ms = performance.now() - t0;
  process.send(out);
});
process.on('disconnect', () => process.exit(0));
`;

interface Req {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Sends `reqs` from a process of its own, `concurrency` at a time; the wall time and the statuses. */
async function fire(reqs: Req[], concurrency = WRITE_CLIENTS): Promise<{ ms: number; statuses: Record<string, number>; errors: string[] }> {
  const { child, close } = forkScript(LOADER);
  try {
    return await new Promise((resolve) => {
      child.once('message', resolve as (m: unknown) => void);
      child.send({ reqs, concurrency });
    });
  } finally {
    close();
  }
}

/** Runs `fn` over `xs`, `n` at a time. */
async function pool<T, R>(xs: T[], n: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(xs.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, xs.length) }, async () => {
    for (let i = next++; i < xs.length; i = next++) out[i] = await fn(xs[i]!, i);
  }));
  return out;
}

/** Signature checks per second on one core (ECDSA, the checks these writes make), this run. */
export function signatureCheckRate(ms = 1_000): number {
  const priv = sha256(new TextEncoder().encode('bench-signature-rate'));
  const pub = secp256k1.getPublicKey(priv, true);
  const msg = sha256(new TextEncoder().encode('message'));
  const sig = secp256k1.sign(msg, priv, { prehash: false, format: 'compact' }) as Uint8Array;
  const b = secpBackend();
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    for (let i = 0; i < 50; i++) if (!b.ecdsa(sig, msg, pub)) throw new Error('signature rate: a valid signature failed');
    n += 50;
  }
  return Math.round(n / ((performance.now() - t0) / 1000));
}

let ips = 0;
const ip = () => {
  const n = ips++;
  return `10.88.${(n >> 8) & 255}.${n & 255}`;
};

function caller() {
  return async (m: Market, path: string, body: unknown, token?: string): Promise<Json> => {
    const r = await fetch(`${m.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip(), ...(token ? { 'x-session-token': token } : {}) },
      body: JSON.stringify(body),
    });
    const out = (await r.json()) as Json;
    if (r.status !== 200) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(out)}`);
    return out.result as Json;
  };
}

async function signIn(rig: CrashRig, m: Market, w: TestWallet): Promise<string> {
  const post = caller();
  const c = await post(m, '/v1/auth/challenge', { address: w.address });
  return (await post(m, '/v1/auth/verify', { address: w.address, issued_at: c.issued_at, signature: signMessageBip322(w, c.message as string) })).token as string;
}

/** A faucet coin of `sats` for `w` (unconfirmed), with its parent's bytes. */
async function coin(rig: CrashRig, w: TestWallet, sats: number) {
  const f = await rig.control('faucet', { address: w.address, amount_sats: sats });
  if (f.status !== 200) throw new Error(`faucet: ${JSON.stringify(f.body)}`);
  const { txid, vout } = f.body.result as { txid: string; vout: number };
  const prevTx = hex.decode((await rig.rpc('getrawtransaction', [txid, false])) as string);
  return { txid, vout, amount: Transaction.fromRaw(prevTx, READ_TX_OPTS).getOutput(vout).amount!, prevTx };
}

/** Waits until the markets' store indexed the node's tip. */
async function indexed(rig: CrashRig): Promise<void> {
  const tip = (await rig.rpc('getblockcount')) as number;
  await until('the market to index the tip', async () => {
    const c = await rig.withMarketDb((db) => db.selectFrom('indexed_blocks').select('height').orderBy('height', 'desc').limit(1).executeTakeFirst());
    return c && Number(c.height) >= tip ? true : undefined;
  }, 120_000);
}

/** `n` one-line checkouts ready to complete on `ms` (alternating): listed units, funded buyers, signed quotes. */
async function checkoutRequests(rig: CrashRig, ms: Market[], n: number, tag: string): Promise<Req[]> {
  const post = caller();
  const a = ms[0]!;
  const sellers = Array.from({ length: Math.ceil(n / 10) }, (_, j) => makeWallet(j % 2 ? 'p2tr' : 'p2wpkh', `${tag}-wseller-${j}`));
  const buyers = Array.from({ length: n }, (_, k) => makeWallet('p2wpkh', `${tag}-wbuyer-${k}`));
  // On the chain: every unit issued and attached, every buyer funded, in one block.
  const units = await pool(Array.from({ length: n }, (_, k) => k), 8, async (k) => {
    const seller = sellers[Math.floor(k / 10)]!;
    const issued = await rig.control('assets', { issuer: seller.address, quantity_raw: '1', divisible: false });
    if (issued.status !== 200) throw new Error(`assets: ${JSON.stringify(issued.body)}`);
    const asset = issued.body.result.asset as string;
    const pay = await coin(rig, seller, 30_000);
    const attach = buildTx([{ wallet: seller, coin: pay, sighash: seller.family === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL }], (input0) => [
      { script: seller.script, amount: 330n },
      { script: attachOutputScript({ input0Txid: input0, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
      { script: seller.script, amount: pay.amount - 330n - 2_000n },
    ]);
    const txid = (await rig.rpc('sendrawtransaction', [attach])) as string;
    await coin(rig, buyers[k]!, 100_000);
    return { seller, asset, outpoint: { txid, vout: 0 } };
  });
  await rig.mine(1);
  await indexed(rig);
  const sellerTokens = await pool(sellers, 8, (w) => signIn(rig, a, w));
  const expires = Math.floor(Date.now() / 1000) + 86_400;
  const listings = await pool(units, 8, async (u, k) => {
    const token = sellerTokens[Math.floor(k / 10)]!;
    const pf = await post(a, '/v1/listing-preflights', {
      seller: u.seller.address, asset: u.asset, quantity_raw: '1', mode: 'reuse', asset_utxo: u.outpoint, price_sats: 20_000 + k, idempotency_key: `${tag}-${k}`,
    }, token);
    const psbt = signPsbt(pf.listing.psbt_hex as string, u.seller, [0], SigHash.SINGLE_ANYONECANPAY);
    return (await post(a, `/v1/listing-preflights/${pf.id}/listing`, { psbt_hex: psbt, expires_at: expires }, token)).id as string;
  });
  return pool(buyers, 8, async (w, k) => {
    const token = await signIn(rig, a, w);
    const q = await post(a, '/v1/checkout/quotes', { lines: [{ listing_id: listings[k]! }] }, token);
    const signed = signPsbt(q.psbt_hex as string, w, q.inputs_to_sign as number[], SigHash.ALL);
    const m = ms[k % ms.length]!;
    return { url: `${m.url}/v1/checkout/quotes/${q.id}/complete`, headers: { 'content-type': 'application/json', 'x-session-token': token, 'x-forwarded-for': ip() }, body: JSON.stringify({ psbt_hex: signed }) };
  });
}

const finalize = (psbtHex: string) => {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  tx.finalize();
  return hex.encode(tx.extract());
};

/** `n` one-slot placements ready to send to `ms` (alternating), each bidding on an asset of its own. */
async function bidRequests(rig: CrashRig, ms: Market[], n: number, tag: string): Promise<Req[]> {
  const post = caller();
  const a = ms[0]!;
  const holder = makeWallet('p2wpkh', `${tag}-bholder`);
  const bidders = Array.from({ length: n }, (_, k) => makeWallet(k % 2 ? 'p2tr' : 'p2wpkh', `${tag}-bidder-${k}`));
  const assets = await pool(bidders, 8, async (w) => {
    const issued = await rig.control('assets', { issuer: holder.address, quantity_raw: '1', divisible: false });
    if (issued.status !== 200) throw new Error(`assets: ${JSON.stringify(issued.body)}`);
    await coin(rig, w, 200_000);
    return issued.body.result.asset as string;
  });
  await rig.mine(1);
  await indexed(rig);
  const expires = Math.floor(Date.now() / 1000) + 86_400;
  return pool(bidders, 8, async (w, k) => {
    const token = await signIn(rig, a, w);
    const fund = await post(a, '/v1/offer-funding', { price_sats: 30_000, slots: 1, fee_rate: 2 }, token);
    const raw = finalize(signPsbt(fund.psbt_hex as string, w, fund.inputs_to_sign as number[], w.family === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL));
    const m = ms[k % ms.length]!;
    return {
      url: `${m.url}/v1/funded-offers`,
      headers: { 'content-type': 'application/json', 'x-session-token': token, 'x-forwarded-for': ip() },
      body: JSON.stringify({ funding_tx_hex: raw, bids: fund.bids, targets: [{ scope: 'asset', asset: assets[k]! }], expires_at: expires }),
    };
  });
}

export interface WriteRate {
  writes: number;
  per_s: number;
  /** The servers' CPU per write, ms (the market processes only; the devnet and the clients are not counted). */
  server_cpu_ms: number;
  failed: number;
}

/** The first `warmup` writes unmeasured (a fresh process runs its first calls unoptimised), then the rest timed. */
async function timed(ms: Market[], all: Req[], warmup: number): Promise<WriteRate> {
  const w = await fire(all.slice(0, warmup));
  if ((w.statuses['200'] ?? 0) !== warmup) throw new Error(`warm-up writes: ${JSON.stringify(w.statuses)} ${w.errors.join(' | ')}`);
  const reqs = all.slice(warmup);
  const cpu = () => ms.reduce((s, m) => s + (cpuOf(m.proc.pid!) ?? 0), 0);
  const c0 = cpu();
  const r = await fire(reqs);
  const c1 = cpu();
  const ok = r.statuses['200'] ?? 0;
  if (ok !== reqs.length) throw new Error(`writes: ${JSON.stringify(r.statuses)} ${r.errors.join(' | ')}`);
  return { writes: reqs.length, per_s: Math.round((ok / r.ms) * 1000 * 10) / 10, server_cpu_ms: Math.round(((c1 - c0) / ok) * 10) / 10, failed: reqs.length - ok };
}

export interface WriteFigures {
  checkout1: WriteRate;
  bid_place: WriteRate;
}

/** One configuration: a rig on `on` with `instances` markets; both writes measured on it. */
async function measure(on: 'sqlite' | 'postgres', instances: number, n: number): Promise<WriteFigures> {
  const tag = `wl${on === 'sqlite' ? 's' : 'p'}${instances}`;
  const rig = await crashRig(tag, on);
  try {
    const env = clusterEnv({ over: { LOG_LEVEL: 'silent' } });
    const ms: Market[] = [];
    for (let i = 0; i < instances; i++) ms.push(await rig.market(undefined, env));
    const warmup = Math.min(32, Math.floor(n / 4));
    const checkouts = await checkoutRequests(rig, ms, n + warmup, tag);
    const checkout1 = await timed(ms, checkouts, warmup);
    const bids = await bidRequests(rig, ms, n + warmup, tag);
    const bid_place = await timed(ms, bids, warmup);
    return { checkout1, bid_place };
  } finally {
    await rig.close();
  }
}

export interface WriteLoad {
  signature_checks_per_s: number;
  sqlite: WriteFigures | { skipped: string };
  pg_1i: WriteFigures | { skipped: string };
  pg_2i: WriteFigures | { skipped: string };
}

/**
 * The three configurations, `n` writes of each kind timed in each (BENCH_WRITES, default 160),
 * after up to 32 unmeasured. A configuration that fails (a process that did not start on a
 * loaded machine) is reported as skipped with its error; the others still run.
 */
export async function writeLoadBench(n = Number(process.env.BENCH_WRITES ?? 160), progress: (line: string) => void = () => {}): Promise<WriteLoad> {
  const signature_checks_per_s = signatureCheckRate();
  const attempt = async (on: 'sqlite' | 'postgres', instances: number): Promise<WriteFigures | { skipped: string }> => {
    try {
      const r = await measure(on, instances, n);
      progress(`${on} × ${instances}: ${JSON.stringify(r)}`);
      return r;
    } catch (e) {
      progress(`${on} × ${instances} failed: ${e instanceof Error ? e.message : String(e)}`);
      return { skipped: `failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 200)}` };
    }
  };
  const sqlite = await attempt('sqlite', 1);
  const why = await unreachable(pgUrl);
  if (why) return { signature_checks_per_s, sqlite, pg_1i: { skipped: why }, pg_2i: { skipped: why } };
  return { signature_checks_per_s, sqlite, pg_1i: await attempt('postgres', 1), pg_2i: await attempt('postgres', 2) };
}
