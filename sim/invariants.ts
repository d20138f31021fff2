/**
 * The invariants, each a named check with its own failure message. `continuous` ones run while
 * the market trades (what must hold at every moment); `settled` ones run at quiescence, once the
 * faults are healed, the mempool mined and the market synced (what must hold once things settle).
 * The oracle reads the market's store and the devnet's ledgers directly: it is the one observer
 * that is not a client.
 */
import fs from 'node:fs';
import path from 'node:path';
import { hex } from '@scure/base';
import { Address, OutScript, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../src/bitcoin/transaction.js';
import { networkParams } from '../src/bitcoin/networks.js';
import type { Violation } from './history.js';
import type { World } from './world.js';
import type { Trader } from './traders.js';
import { feedMirror, ownerFeedReplay } from './feed-checks.js';
import { webhookMirror } from './webhook-checks.js';
import { targetTakes, type CatalogEntry, type Target } from './targets.js';

export interface Check {
  name: string;
  run(w: World, traders: Trader[]): Promise<Violation[]>;
}

const v = (name: string, message: string): Violation => ({ name, message });

/** No listing or offer filled twice: at most one fill that is not dropped per listing or offer. */
const oneWinner: Check = {
  name: 'one_winner',
  run: (w) => w.withDb(async (q) => {
    const rows = await q(`select kind, ref_id, count(*) as n from fills where state <> 'dropped' group by kind, ref_id having count(*) > 1`);
    // A listed unit sells through its listing (a checkout: a 'listing' fill) or through an accepted
    // offer over it (an 'offer' fill of the same seller and asset); never through two.
    const sold = await q(`select l.id,
                                 (select count(*) from fills f where f.kind = 'listing' and f.ref_id = l.id and f.state <> 'dropped') as n,
                                 (select count(*) from fills f where f.kind = 'offer' and f.seller = l.seller and f.asset = l.asset and f.state <> 'dropped') as offers
                            from listings l where l.state = 'sold'`).then((rows) => rows.filter((r) => Number(r.n) > 1 || (Number(r.n) === 0 && Number(r.offers) === 0)));
    return [
      ...rows.map((r) => v('one_winner', `${r.kind} ${r.ref_id} has ${r.n} live fills`)),
      ...sold.map((r) => v('one_winner', `listing ${r.id} is sold with ${r.n} live fills`)),
    ];
  }),
};

/** Every claim belongs to a live settlement (a released one holds nothing). */
const claimsLive: Check = {
  name: 'claims_live',
  run: (w) => w.withDb(async (q) => {
    const rows = await q(`select c.outpoint, s.id, s.state from outpoint_claims c join settlements s on s.id = c.settlement_id where s.state in ('rejected', 'conflicted')`);
    const orphans = await q(`select c.outpoint from outpoint_claims c left join settlements s on s.id = c.settlement_id where s.id is null`);
    return [
      ...rows.map((r) => v('claims_live', `claim on ${r.outpoint} held by released settlement ${r.id} (${r.state})`)),
      ...orphans.map((r) => v('claims_live', `claim on ${r.outpoint} has no settlement`)),
    ];
  }),
};

/** Once settled: every signed settlement is confirmed or released, and its fills and listings agree. */
const noLostTrade: Check = {
  name: 'no_lost_trade',
  run: (w) => w.withDb(async (q) => {
    const out: Violation[] = [];
    for (const s of await q(`select id, kind, state, txid from settlements where state in ('journaled', 'relayed')`)) {
      out.push(v('no_lost_trade', `settlement ${s.id} (${s.kind}, ${s.txid}) is still ${s.state} after the market settled`));
    }
    for (const f of await q(`select f.id, f.state, s.state as s_state from fills f join settlements s on s.id = f.settlement_id
                              where (f.state = 'confirmed') <> (s.state = 'confirmed') or (f.state = 'dropped') <> (s.state in ('rejected', 'conflicted'))`)) {
      out.push(v('no_lost_trade', `fill ${f.id} is ${f.state} while its settlement is ${f.s_state}`));
    }
    for (const l of await q(`select id from listings where state = 'reserved'`)) out.push(v('no_lost_trade', `listing ${l.id} is still reserved after the market settled`));
    for (const s of await q(`select id, txid from settlements where state = 'confirmed'`)) {
      const tx = await w.rpc('getrawtransaction', [s.txid, true]).catch(() => null);
      if (!tx || !(tx.confirmations >= 1)) out.push(v('no_lost_trade', `settlement ${s.id} is confirmed but ${s.txid} is not in a block`));
    }
    return out;
  }),
};

/** Every confirmed sale paid its seller its price and delivered its unit to its buyer. */
const conservation: Check = {
  name: 'conservation',
  run: (w) => w.withDb(async (q) => {
    const out: Violation[] = [];
    const net = networkParams('regtest');
    const credits = new Map<string, any[]>();
    for (const f of await q(`select * from fills where state = 'confirmed'`)) {
      const raw = (await w.rpc('getrawtransaction', [f.txid, false])) as string;
      const tx = Transaction.fromRaw(hex.decode(raw), READ_TX_OPTS);
      const sellerScript = hex.encode(OutScript.encode(Address(net).decode(f.seller)));
      let paid = 0n;
      for (let i = 0; i < tx.outputsLength; i++) {
        const o = tx.getOutput(i);
        if (o.script && hex.encode(o.script) === sellerScript) paid += o.amount ?? 0n;
      }
      const owed = f.kind === 'listing' ? BigInt(f.price_sats) : 1n;
      if (paid < owed) out.push(v('conservation', `${f.kind} fill ${f.id} (${f.txid}) paid seller ${f.seller} ${paid} sats, owed at least ${owed}`));
      if (f.block_index !== null) {
        // Detached delivery credits the buyer's address; attached delivery moves the unit onto an output of the buyer's.
        const name = f.delivery_mode === 'detached' ? 'CREDIT' : 'UTXO_MOVE';
        const key = `${f.block_index}:${name}`;
        if (!credits.has(key)) {
          const r = await fetch(`${w.devnet.apiUrl}/v2/blocks/${f.block_index}/events?event_name=${name}&limit=1000`);
          credits.set(key, ((await r.json()) as { result?: any[] }).result ?? []);
        }
        const to = (e: any) => (name === 'CREDIT' ? e.params?.address : e.params?.destination_address);
        const got = credits.get(key)!.some((e) => e.tx_hash === f.txid && to(e) === f.buyer && e.params?.asset === f.asset);
        if (!got) {
          const message = `${f.kind} fill ${f.id} (${f.txid}) confirmed, but ${f.buyer} was not ${f.delivery_mode === 'detached' ? 'credited' : 'moved'} ${f.asset} by it (${f.delivery_mode} delivery)`;
          const undone = f.kind === 'listing' ? await attachUndoneAfterSale(w, q, f.ref_id) : null;
          // The documented gap, but only with its parties told: the buyer's feed must say so.
          const told = undone ? (await q(`select 1 from owner_events where kind = 'purchase_undelivered' and address = ? and listing_id = ? and txid = ?`, [f.buyer, f.ref_id, f.txid])).length > 0 : false;
          if (undone && told) out.push({ ...v('conservation', `${message}: ${undone}; the buyer was told (purchase_undelivered)`), known: UNFINAL_ATTACH });
          else out.push(v('conservation', undone ? `${message}: ${undone}, and the buyer's feed has no purchase_undelivered` : message));
        }
      }
    }
    return out;
  }),
};

/** docs/simulation.md, "A unit sold before its attach is final". */
export const UNFINAL_ATTACH = 'unit_sold_before_its_attach_was_final';

/**
 * Why a confirmed listing sale delivered nothing, when the cause is the documented one: the
 * listing's attach was confirmed and verified when the unit sold, a reorg then disconnected it
 * (the market reopened the completed draft: `reopened`), and in the chain that won Counterparty
 * finds that attach invalid or no attach at all (the balance it attached was never the seller's
 * there: the transaction that credited it was reordered after it, or lost to a conflicting spend).
 * Null for any other cause, which stays a violation.
 */
async function attachUndoneAfterSale(w: World, q: (text: string, params?: unknown[]) => Promise<any[]>, listingId: string): Promise<string | null> {
  const [d] = await q(`select d.attach_txid, d.reopened from listings l join listing_drafts d on d.id = l.draft_id where l.id = ? and d.mode = 'attach'`, [listingId]);
  if (!d?.attach_txid || !Number(d.reopened)) return null;
  const tx = await w.rpc('getrawtransaction', [d.attach_txid, true]).catch(() => null);
  if (!tx?.blockhash) return null;
  const height = ((await w.rpc('getblockheader', [tx.blockhash])) as { height: number }).height;
  const r = await fetch(`${w.devnet.apiUrl}/v2/blocks/${height}/events?event_name=ATTACH_TO_UTXO&limit=1000`);
  const attach = (((await r.json()) as { result?: any[] }).result ?? []).find((e) => e.tx_hash === d.attach_txid);
  if (attach?.params?.status === 'valid') return null;
  return `its attach ${d.attach_txid} was disconnected by a reorg after the sale and mined again in block ${height}, where Counterparty found it ${attach ? String(attach.params?.status) : 'carrying no attach'}`;
}

/**
 * Public reads tell the truth: every listing the public book shows is active on the market, and
 * every active, public listing of a collection's first price levels is on its book.
 */
const truthfulBook: Check = {
  name: 'truthful_reads',
  run: async (w) => {
    const m = w.live()[0];
    if (!m) return [v('truthful_reads', 'no instance is up to read')];
    const out: Violation[] = [];
    const collections = ((await (await fetch(`${m.url}/v1/collections?limit=100`, { headers: { 'cache-control': 'no-cache' } })).json()) as any).result as Array<{ slug: string }>;
    await w.withDb(async (q) => {
      for (const c of collections) {
        const book = ((await (await fetch(`${m.url}/v1/collections/${c.slug}/book`)).json()) as any).result;
        for (const level of book.asks as any[]) {
          for (const l of level.listings as any[]) {
            const [row] = await q(`select state, price_sats from listings where id = ?`, [l.id]);
            if (!row || row.state !== 'active') out.push(v('truthful_reads', `the ${c.slug} book shows ${l.id} at ${l.price_sats} while the listing is ${row?.state ?? 'unknown'}`));
            else if (Number(row.price_sats) !== l.price_sats) out.push(v('truthful_reads', `the ${c.slug} book shows ${l.id} at ${l.price_sats}, its price is ${row.price_sats}`));
          }
        }
      }
    });
    return out;
  },
};

/**
 * The market relays no invalid signature: it verifies every signature it journals (the parties'
 * and its own), so the node never refuses one of its settlements, or a package member, on a
 * script check. Day 9107 met this: two instances with two market wallet keys signed each
 * other's anchors, and the node refused the sweeps and accepts as invalid Schnorr signatures.
 */
const scriptFailure = (col: string) => `(${col} like '%script-verify-flag-failed%' or ${col} like '%Invalid Schnorr signature%' or ${col} like '%Signature must be zero%')`;
const validSignatures: Check = {
  name: 'valid_signatures',
  run: (w) => w.withDb(async (q) => {
    const settlements = await q(`select id, kind, mempool_reason as reason from settlements where ${scriptFailure('mempool_reason')}`);
    const members = await q(`select settlement_id as id, txid, reason from settlement_members where ${scriptFailure('reason')}`);
    return [...settlements, ...members].map((r) => v('valid_signatures', `settlement ${r.id}${r.kind ? ` (${r.kind})` : ` member ${r.txid}`} was refused by the node on a script check: ${String(r.reason).slice(0, 200)}`));
  }),
};

/** No PSBT, private key or raw signed transaction in any process's log. */
const noLeakInLogs: Check = {
  name: 'no_leak',
  run: async (w, traders) => {
    const out: Violation[] = [];
    const secrets = traders.flatMap((t) => [hex.encode(t.signer.privateKey), t.signer.wif]);
    for (const f of fs.readdirSync(w.o.dir).filter((n) => n.endsWith('.log'))) {
      const text = fs.readFileSync(path.join(w.o.dir, f), 'utf8');
      if (/70736274ff[0-9a-f]{20}/i.test(text)) out.push(v('no_leak', `${f} holds a PSBT in hex`));
      if (/cHNidP8[A-Za-z0-9+/]{20}/.test(text)) out.push(v('no_leak', `${f} holds a PSBT in base64`));
      if (/0[12]000000000101[0-9a-f]{200}/i.test(text)) out.push(v('no_leak', `${f} holds a raw segwit transaction`));
      for (const s of secrets) if (text.includes(s)) out.push(v('no_leak', `${f} holds a trader's private key`));
    }
    return out;
  },
};

/**
 * Once settled: no bid stays active over a funding transaction a trader replaced whose replacement
 * is in a block (its slots can never exist; the market must have retired the offers), nor over a
 * slot whose funding is in a block and whose output a block spent (the bidder took its money back,
 * or a trade did: the offer must have ended; a funding the node merely dropped is not judged).
 */
const liveBids: Check = {
  name: 'live_bids',
  run: (w) => w.withDb(async (q) => {
    const out: Violation[] = [];
    for (const [funding, replacement] of w.replacedFundings) {
      const mined = (await w.rpc('getrawtransaction', [replacement, true]).catch(() => null)) as { confirmations?: number } | null;
      if (!mined?.confirmations) continue;
      for (const o of await q(`select id from offers where state = 'active' and bid_txid = '${funding}'`)) {
        out.push(v('live_bids', `offer ${o.id} is active over funding ${funding}, replaced by ${replacement} in a block`));
      }
    }
    const slots = await q(`select distinct bid_txid, bid_vout from offers where state = 'active'`);
    for (const sl of slots) {
      const funding = (await w.rpc('getrawtransaction', [sl.bid_txid, true]).catch(() => null)) as { confirmations?: number } | null;
      if (!funding?.confirmations) continue;
      if ((await w.rpc('gettxout', [sl.bid_txid, Number(sl.bid_vout), true])) !== null) continue;
      out.push(v('live_bids', `offers over slot ${sl.bid_txid}:${sl.bid_vout} are active, yet the slot is spent (its funding confirmed)`));
    }
    return out;
  }),
};

/**
 * Every offer fill sold a unit its offer's target takes, at the offer's price: the asset named, or
 * a member of the collection meeting each trait bound, read by the simulator's own predicate
 * (targets.ts) over the imported catalogue.
 */
const offerTargets: Check = {
  name: 'offer_targets',
  run: (w) => w.withDb(async (q) => {
    const out: Violation[] = [];
    const n = (x: unknown) => (x === null || x === undefined ? null : Number(x));
    const catalog = new Map<string, CatalogEntry>();
    for (const r of await q(`select asset, collection_slug, max_supply_units, issued_year, series from catalog_assets`)) {
      catalog.set(r.asset, { asset: r.asset, collection: r.collection_slug, max_supply_units: Number(r.max_supply_units), issued_year: Number(r.issued_year), series: Number(r.series) });
    }
    for (const f of await q(`select id, ref_id, asset, price_sats from fills where kind = 'offer' and state <> 'dropped'`)) {
      const [o] = [...(await q(`select * from policy_offers where id = ?`, [f.ref_id])), ...(await q(`select * from offers where id = ?`, [f.ref_id]))];
      if (!o) {
        out.push(v('offer_targets', `fill ${f.id} names offer ${f.ref_id}, which the store does not hold`));
        continue;
      }
      const target: Target = { scope: o.scope, asset: o.asset, collection: o.collection, max_supply_units: n(o.max_supply_units), min_supply_units: n(o.min_supply_units), issued_year: n(o.issued_year), series: n(o.series), artist: o.artist };
      if (!targetTakes(target, catalog.get(f.asset))) out.push(v('offer_targets', `fill ${f.id} sold ${f.asset} into offer ${o.id}, whose target ${JSON.stringify(target)} does not take it`));
      if (Number(f.price_sats) !== Number(o.price_sats)) out.push(v('offer_targets', `fill ${f.id} sold at ${f.price_sats} sats into offer ${o.id} priced ${o.price_sats}`));
    }
    return out;
  }),
};

/**
 * What its owner ended stays unsold: no listing the seller delisted (alone or in a batch) and no
 * bid its bidder cancelled has a sale that is not dropped. Either ending is one guarded UPDATE
 * from an open state, and a claim takes only open rows, so the two can never both have won.
 */
const endedStaysUnsold: Check = {
  name: 'ended_stays_unsold',
  run: (w) => w.withDb(async (q) => {
    const listings = await q(`select l.id, f.id as fill, f.state from listings l join fills f on f.kind = 'listing' and f.ref_id = l.id
                               where l.state = 'ended' and l.end_reason = 'owner' and f.state <> 'dropped'`);
    const offers = await q(`select o.id, f.id as fill, f.state from offers o join fills f on f.kind = 'offer' and f.ref_id = o.id
                             where o.state = 'cancelled' and f.state <> 'dropped'`);
    return [
      ...listings.map((r) => v('ended_stays_unsold', `listing ${r.id} was delisted by its seller, yet its fill ${r.fill} is ${r.state}`)),
      ...offers.map((r) => v('ended_stays_unsold', `offer ${r.id} was cancelled by its bidder, yet its fill ${r.fill} is ${r.state}`)),
    ];
  }),
};

/**
 * An exposed listing offers its seller one thing, the rotation of its unit; once settled (the
 * mempool mined) its unit must still be unspent on the node, or the listing should have ended
 * when the block that spent it came (sim day 9170: a seller's accept of a bid over that unit).
 */
const exposedUnitUnspent: Check = {
  name: 'exposed_unit_unspent',
  run: async (w) => {
    const rows = await w.withDb((q) => q(`select id, utxo_txid, utxo_vout from listings where state = 'exposed'`));
    const out: Violation[] = [];
    for (const r of rows) {
      const coin = await w.rpc('gettxout', [r.utxo_txid, Number(r.utxo_vout), true]);
      if (coin === null) out.push(v('exposed_unit_unspent', `listing ${r.id} is exposed, yet its unit ${r.utxo_txid}:${r.utxo_vout} is spent (or gone) on the node`));
    }
    return out;
  },
};

/**
 * A rotation the chain confirmed voided its exposed listing's public half: the listing ended
 * `rotated` (listings/rotation.ts), never still exposed or on sale over a unit that moved.
 */
const rotatedListingEnds: Check = {
  name: 'rotated_listing_ends',
  run: (w) => w.withDb(async (q) => {
    const rows = await q(`select l.id, l.state, l.end_reason, s.txid from settlements s join listings l on l.id = s.ref_id
                          where s.kind = 'rotation' and s.state = 'confirmed' and not (l.state = 'ended' and l.end_reason = 'rotated')`);
    return rows.map((r) => v('rotated_listing_ends', `listing ${r.id}'s rotation ${r.txid} confirmed, yet the listing is ${r.state} (${r.end_reason ?? 'no reason'})`));
  }),
};

/**
 * A bid the chain filled reads as filled: an exact accept or a collection accept whose settlement
 * confirmed has its authorization used (by that settlement), its offer filled, and for a
 * collection offer its funding set filled, whatever a release had undone before the block came
 * (the journal's revival, settlement kinds' onConfirmed; sim day 9162).
 */
const confirmedBidFilled: Check = {
  name: 'confirmed_bid_filled',
  run: (w) => w.withDb(async (q) => {
    const exact = await q(`select a.id, a.state as auth, o.state as offer, s.id as settlement from settlements s
                             join exact_authorizations a on a.id = s.ref_id join offers o on o.id = a.offer_id
                            where s.kind = 'exact_offer' and s.state = 'confirmed'
                              and (a.state <> 'used' or a.settlement_id <> s.id or o.state <> 'filled')`);
    const policy = await q(`select p.id, f.state as set_state, f.id as set_id, o.state as offer from settlements s
                              join policy_accepts p on p.id = s.ref_id join policy_funding_sets f on f.id = p.funding_set_id
                              join policy_offers o on o.id = p.offer_id
                             where s.kind = 'policy_accept' and s.state = 'confirmed' and s.txid = p.expected_txid
                               and (f.state <> 'filled' or o.state <> 'filled')`);
    return [
      ...exact.map((r) => v('confirmed_bid_filled', `exact accept ${r.settlement} confirmed, yet its authorization ${r.id} is ${r.auth} and its offer ${r.offer}`)),
      ...policy.map((r) => v('confirmed_bid_filled', `collection accept ${r.id} confirmed, yet its funding set ${r.set_id} is ${r.set_state} and its alternative ${r.offer}`)),
    ];
  }),
};

export const CONTINUOUS: Check[] = [oneWinner, claimsLive, endedStaysUnsold, confirmedBidFilled];
export const SETTLED: Check[] = [oneWinner, claimsLive, noLostTrade, liveBids, endedStaysUnsold, confirmedBidFilled, rotatedListingEnds, exposedUnitUnspent, offerTargets, validSignatures, conservation, truthfulBook, feedMirror, ownerFeedReplay, webhookMirror, noLeakInLogs];

/** Public answers (no session) must carry no PSBT or raw transaction. */
export function leakInPublicAnswer(text: string): string | undefined {
  if (/70736274ff[0-9a-f]{20}/i.test(text)) return 'a PSBT in hex';
  if (/cHNidP8[A-Za-z0-9+/]{20}/.test(text)) return 'a PSBT in base64';
  if (/0[12]000000000101[0-9a-f]{200}/i.test(text)) return 'a raw segwit transaction';
  return undefined;
}
