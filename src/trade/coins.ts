/**
 * Trade kernel: owns which of a wallet's coins the market may spend for it. Every area that builds
 * a transaction from a wallet's BTC asks here (checkout funding, attach, bid funding, collection-
 * offer funding, the seller's unit moves and rotations, the market wallet's anchors), so one rule
 * holds everywhere.
 *
 * The market spends on its own only a coin that is
 * - confirmed, and (unless the caller opts out) in a block Counterparty has parsed: Core answers
 *   "ready" while one block behind, and there a UTXO that block gave a balance still reads as
 *   holding nothing; a composition must not hang on a parent that may never confirm either;
 * - free of any Counterparty balance (spending it would move or detach the balance);
 * - not claimed by a settlement in flight (the journal's outpoint claims);
 * - not holding up one of the wallet's open offers: an open bid slot (`offer_slots`, spending it
 *   retires its bids) or an input of a live collection-offer funding set (`policy_funding_inputs`,
 *   spending it invalidates the set with `funding_spent`).
 * A coin the caller names explicitly is its choice: it may hold up open offers, and the answer then
 * says which ones it would end (`ends_offers`, `EndsOffers` below; `offersEndedBy`). Named coins
 * (`namedCoins`) are read through the chain ports (`gettxout`), never through the UTXO source: a
 * wallet that knows its coins depends on neither Electrs nor `scantxoutset`.
 *
 * The open-offer tables belong to the offers and policy-offers areas; this module only reads them
 * (through the store's schema), and only to know what a coin holds up.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Context } from '../context.js';
import type { Db, Tx } from '../store/db.js';
import { ApiError } from '../http/errors.js';
import { outpointKey } from './outpoints.js';
import type { BuyerCoin } from './compose.js';

/** Funding-set states whose inputs still back an offer (policy-offers' LIVE_SET_STATES). */
const LIVE_FUNDING_SETS = ['awaiting_signatures', 'open'] as const;

export interface SpendableOptions {
  /** Leave out coins of blocks Counterparty has not parsed yet (default true). */
  parsedOnly?: boolean;
  /** Further outpoints the caller keeps out (coins its open drafts promised, the market wallet's anchors), or how to find them among the address's coins. */
  exclude?: ReadonlySet<string> | ((outpoints: string[]) => Promise<ReadonlySet<string>>);
  /** Outpoints the caller named explicitly: these may back open offers (report them with offersEndedBy). */
  named?: ReadonlySet<string>;
}

/** What spending a named coin would end: the open offers it backs. */
export const EndsOffers = Type.Array(
  Type.Object({
    outpoint: Type.String({ description: 'The named coin (`txid:vout`)' }),
    kind: Type.Union([Type.Literal('bid'), Type.Literal('collection_offer')], { description: '`bid`: an open bid slot of the address; `collection_offer`: an input of an open collection offer\'s funding' }),
    offer_ids: Type.Array(Type.String(), { description: 'The open offers that end (retired, or invalidated with funding_spent) once this transaction spends the coin' }),
  }),
  {
    description:
      'Offers of the address that this transaction ends once it is broadcast, because a coin named in the request backs them. Empty when no named coin backs an open offer. The market never picks such a coin on its own; naming it is the caller\'s choice.',
  },
);
export type EndsOffers = Static<typeof EndsOffers>;

/** The open offers each of `outpoints` backs; outpoints that back none are absent. */
export async function offersEndedBy(db: Db | Tx, outpoints: readonly string[]): Promise<EndsOffers> {
  if (!outpoints.length) return [];
  const [bids, sets] = await Promise.all([
    db
      .selectFrom('offer_slots as s')
      .leftJoin('offers as o', (j) => j.onRef('o.slot_id', '=', 's.id').on('o.state', '=', 'active'))
      .select(['s.outpoint', 'o.id'])
      .where('s.outpoint', 'in', outpoints)
      .where('s.state', '=', 'open')
      .execute(),
    db
      .selectFrom('policy_funding_inputs as i')
      .innerJoin('policy_funding_sets as s', 's.id', 'i.funding_set_id')
      .leftJoin('policy_offers as o', (j) => j.onRef('o.funding_set_id', '=', 's.id').on('o.state', '=', 'active'))
      .select(['i.outpoint', 'o.id'])
      .where('i.outpoint', 'in', outpoints)
      .where('s.state', 'in', [...LIVE_FUNDING_SETS])
      .execute(),
  ]);
  const out = new Map<string, EndsOffers[number]>();
  const add = (outpoint: string, kind: EndsOffers[number]['kind'], id: string | null) => {
    const key = `${kind} ${outpoint}`;
    const e = out.get(key) ?? out.set(key, { outpoint, kind, offer_ids: [] }).get(key)!;
    if (id !== null && !e.offer_ids.includes(id)) e.offer_ids.push(id);
  };
  for (const r of bids) add(r.outpoint, 'bid', r.id);
  for (const r of sets) add(r.outpoint, 'collection_offer', r.id);
  return [...out.values()].sort((a, b) => outpoints.indexOf(a.outpoint) - outpoints.indexOf(b.outpoint) || a.kind.localeCompare(b.kind)).map((e) => ({ ...e, offer_ids: e.offer_ids.sort() }));
}

/** The outpoints among `outpoints` that back an open offer (an open bid slot or a live funding set's input). */
export async function heldByOffers(db: Db | Tx, outpoints: readonly string[]): Promise<Set<string>> {
  if (!outpoints.length) return new Set();
  const [slots, inputs] = await Promise.all([
    db.selectFrom('offer_slots').select('outpoint').where('outpoint', 'in', outpoints).where('state', '=', 'open').execute(),
    db
      .selectFrom('policy_funding_inputs as i')
      .innerJoin('policy_funding_sets as s', 's.id', 'i.funding_set_id')
      .select('i.outpoint')
      .where('i.outpoint', 'in', outpoints)
      .where('s.state', 'in', [...LIVE_FUNDING_SETS])
      .execute(),
  ]);
  return new Set([...slots.map((r) => r.outpoint), ...inputs.map((r) => r.outpoint)]);
}

/** The coins of `address` the market may spend on its own, largest first (see the header). */
export async function spendableCoins(ctx: Pick<Context, 'chain' | 'journal' | 'store'>, address: string, opts: SpendableOptions = {}): Promise<BuyerCoin[]> {
  const parsedOnly = opts.parsedOnly ?? true;
  // Counterparty's height is read before its balances, so every coin at or below it is covered.
  const [status, all] = await Promise.all([parsedOnly ? ctx.chain.counterparty.getStatus() : null, ctx.chain.utxos.getAddressUtxos(address)]);
  const utxos = all.filter((u) => u.confirmations >= 1 && u.value_sats > 0 && (!status || (u.height !== null && u.height <= status.counterparty_height)));
  const keys = utxos.map((u) => outpointKey(u.txid, u.vout));
  const [withBalances, claimed, held, excluded] = await Promise.all([
    keys.length ? ctx.chain.counterparty.getUtxosWithBalances(keys) : Promise.resolve(new Set<string>()),
    ctx.journal.claimed(ctx.store.db, keys),
    heldByOffers(ctx.store.db, keys),
    typeof opts.exclude === 'function' ? (keys.length ? opts.exclude(keys) : new Set<string>()) : (opts.exclude ?? new Set<string>()),
  ]);
  return utxos
    .filter((_, i) => !withBalances.has(keys[i]!) && !claimed.has(keys[i]!) && (!held.has(keys[i]!) || !!opts.named?.has(keys[i]!)) && !excluded.has(keys[i]!))
    .sort((a, b) => b.value_sats - a.value_sats || a.txid.localeCompare(b.txid) || a.vout - b.vout)
    .map((u) => ({ txid: u.txid, vout: u.vout, value_sats: u.value_sats }));
}

/**
 * The buyer's spendable BTC for a checkout (and every other buyer-funded composition): the
 * spendable coins of the header. Only this BTC counts as `have_sats`.
 */
export const buyerCoins = (ctx: Pick<Context, 'chain' | 'journal' | 'store'>, buyer: string): Promise<BuyerCoin[]> => spendableCoins(ctx, buyer);

/** How `namedCoins` reads a request's coins. */
export interface NamedCoinOptions {
  /** The request field naming them, for error answers (`body.funding`; each coin `body.funding[N]`). */
  field?: string;
  /**
   * Take coins still in the mempool too (an attach chaining on a previous attach's change). Their
   * Counterparty balances are not known yet (balances are confirmed state), so the caller names
   * the coins among `outpoints` that will carry one once their transaction confirms (the asset
   * UTXOs of its own attaches); those are refused as a coin with a balance is.
   */
  unconfirmed?: { pendingBalances: (outpoints: string[]) => Promise<ReadonlySet<string>> };
}

/**
 * The coins a request names (`funding`), in its order, each checked one by one through the chain
 * ports rather than the UTXO source: unspent (mempool spends applied), paying `address`, confirmed
 * in a block Counterparty has parsed (its balances are confirmed state; a younger coin may yet turn
 * out to carry one) unless `unconfirmed` says otherwise, free of any Counterparty balance, not
 * claimed by a settlement in flight, holding sats. It may back the address's open offers; the
 * caller reports those with `offersEndedBy`.
 */
export async function namedCoins(
  ctx: Pick<Context, 'chain' | 'journal' | 'store'>,
  address: string,
  funding: ReadonlyArray<{ txid: string; vout: number }>,
  opts: NamedCoinOptions = {},
): Promise<BuyerCoin[]> {
  const field = opts.field ?? 'body.funding';
  const keys = funding.map((f) => outpointKey(f.txid, f.vout));
  if (new Set(keys).size !== keys.length) throw new ApiError('invalid_request', `${field} names an outpoint twice`, { field });
  // The outputs before the tip: a block landing in between only makes a coin look younger.
  const outs = await Promise.all(funding.map((f) => ctx.chain.bitcoin.getTxOut(f.txid, f.vout, true)));
  const [tip, status, withBalances, pending, claimed] = await Promise.all([
    ctx.chain.bitcoin.getTip(),
    ctx.chain.counterparty.getStatus(),
    ctx.chain.counterparty.getUtxosWithBalances(keys),
    opts.unconfirmed ? opts.unconfirmed.pendingBalances(keys) : new Set<string>(),
    ctx.journal.claimed(ctx.store.db, keys),
  ]);
  return funding.map((f, i) => {
    const at = `${field}[${i}]`;
    const k = keys[i]!;
    const out = outs[i];
    if (!out) throw new ApiError('state_changed', `${at}: ${k} is spent or unknown`, { field: at, outpoint: k });
    if (out.address !== address) throw new ApiError('invalid_request', `${at}: ${k} does not pay ${address}`, { field: at, outpoint: k });
    if (!opts.unconfirmed && (out.confirmations < 1 || tip.height - out.confirmations + 1 > status.counterparty_height)) {
      throw new ApiError('invalid_request', `${at}: ${k} is not yet confirmed in a block Counterparty has parsed; retry after the next block`, { field: at, outpoint: k, retryable: true, reason: 'unconfirmed' });
    }
    if (withBalances.has(k) || pending.has(k)) {
      throw new ApiError('invalid_request', `${at}: ${k} carries (or will carry, once its transaction confirms) a Counterparty balance and is never spent as funding`, { field: at, outpoint: k });
    }
    if (claimed.has(k)) throw new ApiError('state_changed', `${at}: ${k} is claimed by a settlement in flight`, { field: at, outpoint: k });
    if (out.value_sats <= 0) throw new ApiError('invalid_request', `${at}: ${k} holds no sats`, { field: at, outpoint: k });
    return { txid: f.txid, vout: f.vout, value_sats: out.value_sats };
  });
}
