/**
 * What the simulator's actions share: the run's state as an action sees it, and the reads a bot
 * makes before it acts (the book, its units and others', the node's confirmations).
 */
import { splitOutpoint } from '../src/trade/outpoints.js';
import type { Rng } from './rng.js';
import type { Trader } from './traders.js';
import type { World } from './world.js';
import type { WebhookReceiver } from './webhook-receiver.js';
import type { CatalogEntry } from './targets.js';

export interface SimState {
  world: World;
  traders: Trader[];
  collections: string[];
  /** Every asset of the run, by collection. */
  assets: Map<string, string[]>;
  /** The run's catalogue: each asset's collection and traits. */
  catalog: CatalogEntry[];
  /** Where the traders' webhooks arrive. */
  hooks: WebhookReceiver;
}

export type Action = (s: SimState, t: Trader, rng: Rng) => Promise<string>;

export const now = () => Math.floor(Date.now() / 1000);
export const DAY = 86_400;

/** The listings on the public book of a collection (every level, the shown rows). */
export async function bookListings(t: Trader, slug: string) {
  const book = (await t.client.http.call('GET /v1/collections/{slug}/book', { params: { slug } })).result;
  return book.asks.flatMap((level) => level.listings);
}

/** Counterparty balances held at the trader's address (not attached), from the node's API. */
export async function addressBalances(s: SimState, address: string): Promise<Array<{ asset: string; quantity: number }>> {
  const r = await fetch(`${s.world.devnet.apiUrl}/v2/addresses/${address}/balances?limit=100`);
  const j = (await r.json()) as { result?: Array<{ asset: string; quantity: number; utxo?: string | null }> };
  return (j.result ?? []).filter((b) => !b.utxo && b.asset !== 'XCP' && b.quantity > 0);
}

/**
 * Units held attached (one UTXO each) at the address, from the node's API: what a buyer who took
 * attached delivery holds, or a seller whose listing ended. Not the ones it has listed, pending
 * or in flight (the market's own rows say which).
 */
export async function attachedUnits(s: SimState, t: Trader): Promise<Array<{ asset: string; utxo: { txid: string; vout: number } }>> {
  const r = await fetch(`${s.world.devnet.apiUrl}/v2/addresses/${t.address}/balances?type=utxo&limit=100`);
  const rows = (((await r.json()) as { result?: Array<{ asset: string; quantity: number; utxo?: string | null }> }).result ?? []).filter((b) => b.utxo && b.asset !== 'XCP' && b.quantity > 0);
  if (!rows.length) return [];
  const listed = (await t.client.http.call('GET /v1/address/{address}/listings', { params: { address: t.address }, query: { limit: 100 } })).result;
  const busy = new Set(listed.filter((l) => !['sold', 'ended'].includes(l.state)).map((l) => `${l.asset_utxo.txid}:${l.asset_utxo.vout}`));
  return rows.filter((b) => !busy.has(b.utxo!)).map((b) => ({ asset: b.asset, utxo: splitOutpoint(b.utxo!) }));
}

/** Other traders' attached units of `assets` (anyone's, listed or not), from the node's API. */
export async function othersUnits(s: SimState, t: Trader, assets: string[]): Promise<Array<{ asset: string; utxo: { txid: string; vout: number } }>> {
  const out: Array<{ asset: string; utxo: { txid: string; vout: number } }> = [];
  for (const asset of assets) {
    const r = await fetch(`${s.world.devnet.apiUrl}/v2/assets/${asset}/balances?type=utxo&limit=100`);
    const rows = ((await r.json()) as { result?: Array<{ asset: string; quantity: number; utxo?: string | null; utxo_address?: string | null }> }).result ?? [];
    for (const b of rows) if (b.utxo && b.quantity > 0 && b.utxo_address !== t.address) out.push({ asset: b.asset, utxo: splitOutpoint(b.utxo) });
  }
  return out;
}

/** The node's confirmations of an unspent output (0 in the mempool; -1 spent or unknown). */
export async function confirmationsOf(s: SimState, u: { txid: string; vout: number }): Promise<number> {
  const out = (await s.world.rpc('gettxout', [u.txid, u.vout, true]).catch(() => null)) as { confirmations?: number } | null;
  return out ? (out.confirmations ?? 0) : -1;
}

/** The units whose UTXO the node reports with at least `min` confirmations. */
export async function confirmedAtLeast<U extends { utxo: { txid: string; vout: number } }>(s: SimState, units: U[], min: number): Promise<U[]> {
  const conf = await Promise.all(units.map((u) => confirmationsOf(s, u.utxo)));
  return units.filter((_, i) => conf[i]! >= min);
}

/** Exact offers need their unit's UTXO final (3 confirmations, the contract's rule): at most `n` random candidates asked. */
export const finalUnits = <U extends { utxo: { txid: string; vout: number } }>(s: SimState, rng: Rng, units: U[], n = 6) => confirmedAtLeast(s, rng.sample(units, n), 3);

export type Book = { asks: Array<{ listings: Array<{ seller: string; asset: string; utxo_txid: string; utxo_vout: number }> }> };

export type BookListing = Book['asks'][number]['listings'][number];

/** A listing's unit as the helpers here name units. */
export const unitOf = (l: Pick<BookListing, 'asset' | 'utxo_txid' | 'utxo_vout'>) => ({ asset: l.asset, utxo: { txid: l.utxo_txid, vout: l.utxo_vout } });

/** The trader's own units on a collection's book. */
export const mineIn = (book: Book, t: Trader) => book.asks.flatMap((level) => level.listings).filter((l) => l.seller === t.address).map(unitOf);

/** The trader's unlisted attached units (of a collection's assets, or any) with at least `minConf` confirmations. */
export async function heldIn(s: SimState, t: Trader, slug: string | null, minConf: number) {
  const assets = slug === null ? null : new Set(s.assets.get(slug) ?? []);
  return confirmedAtLeast(s, (await attachedUnits(s, t)).filter((u) => !assets || assets.has(u.asset)), minConf);
}

export const skip = (why: string) => `skip:${why}`;

/** A transaction the bot sends straight to the node, as its wallet would: `done` when taken, a skip naming the node's refusal otherwise. */
export async function sendToNode(s: SimState, txHex: string, done: string): Promise<string> {
  try {
    await s.world.rpc('sendrawtransaction', [txHex]);
    return done;
  } catch (e) {
    return skip(`node_refused:${(e as Error).message.slice(0, 60)}`);
  }
}
