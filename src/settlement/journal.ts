import crypto from 'node:crypto';
import { hex } from '@scure/base';
import { RawTx } from '@scure/btc-signer/script.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../store/db.js';
import { compiledOnce } from '../store/compiled.js';
import { insertRows } from '../store/insert-rows.js';
import type { Clock } from '../clock.js';
import type { BitcoinBackend } from '../chain/ports.js';
import { LIVE, type SettlementTables } from './tables.js';
import { spentElsewhere } from './spent-elsewhere.js';
import { deadInput } from './dead-input.js';
import { relayOnce, type RefusedMember, type RelayOutcome } from './relay.js';
import { mempoolPolicyOf, waitsForConfirmation } from '../chain/errors.js';
import { noFailpoint, type Failpoint } from '../failpoint.js';
import type { Lease } from '../cluster/fence.js';

export type SettlementRow = SettlementTables['settlements'];
export type SignedTx = { txid: string; hex: string };

/** Domain reactions to a settlement's life; each area registers its own kind. */
export interface SettlementHandlers {
  /** In the transaction that released the claims: put the claimed things back (or end them). */
  onReleased?(tx: Tx, s: SettlementRow, outcome: 'rejected' | 'conflicted', reason: string): Promise<void>;
  onRelayed?(tx: Tx, s: SettlementRow): Promise<void>;
  /**
   * Some members of the package reached the mempool and others were refused (in the transaction
   * that recorded it; `s` is the settlement after it: `relayed`, its `txid` the last member that
   * landed). The claims of what landed are kept; what only refused members spent is free again.
   * Tell the parties what really happened.
   */
  onPartial?(tx: Tx, s: SettlementRow, refused: RefusedMember[]): Promise<void>;
  onConfirmed?(tx: Tx, s: SettlementRow, block: { height: number; hash: string; seenAt: number }): Promise<void>;
  onUnconfirmed?(tx: Tx, s: SettlementRow): Promise<void>;
  /**
   * Bytes nobody can sign again: a collection accept's child (the market signer co-signs one
   * child per funding set) or an exact accept's parent (fixed by the bidder's authorization).
   * A wait-class refusal of them (chain_too_long, truc: an input a reorg or a held relay left
   * unconfirmed) is not the end of the trade: the settlement stays journaled with its claims,
   * and recovery relays it again until it lands, loses to a conflict, or the journal's wait
   * hold passes (then it is released as any refusal is). Kinds whose party can sign new bytes
   * (a checkout's buyer re-quotes) release at once.
   */
  holdOnWait?: boolean;
}

/** A held settlement, as the completion and operation reads show it (see SettlementHandlers.holdOnWait). */
export interface SettlementHold {
  mempool_reason: string;
  mempool_policy: string;
  /** Unix seconds: a refusal after this releases the settlement. */
  until: number;
}

/** The outpoints a settlement's transactions spend from outside the settlement itself (`txid:vout`). */
export function spentOutpoints(txs: SignedTx[]): string[] {
  const own = new Set(txs.map((t) => t.txid));
  const out = new Set<string>();
  for (const t of txs) {
    for (const i of RawTx.decode(hex.decode(t.hex)).inputs) {
      const txid = hex.encode(i.txid);
      if (!own.has(txid)) out.add(`${txid}:${i.index}`);
    }
  }
  return [...out].sort();
}

/** Another settlement already holds one of the outpoints. */
export class ClaimLost extends Error {
  constructor(readonly outpoint: string) {
    super(`outpoint ${outpoint} is already claimed`);
    this.name = 'ClaimLost';
  }
}


// Compiled once: every settlement runs them (store/compiled.ts).
const settlementByTxid = compiledOnce((db, txid: string) => db.selectFrom('settlements').selectAll().where('txid', '=', txid));
const markRelayed = compiledOnce((tx, id: string, now: number) =>
  // mempool_reason: a journaled row carries one only while held (holdOnWait), and that wait is over.
  tx.updateTable('settlements').set({ state: 'relayed', relayed_at: now, updated_at: now, last_error: null, mempool_reason: null }).where('id', '=', id).where('state', '=', 'journaled'),
);
const markMembersRelayed = compiledOnce((tx, id: string, now: number) =>
  tx.updateTable('settlement_members').set({ state: 'relayed', updated_at: now }).where('settlement_id', '=', id).where('state', '=', 'pending'),
);

/**
 * The settlement journal. A signed settlement is stored, with the claims on
 * every outpoint it spends, in the same database transaction as the domain
 * change that made it; only then is it broadcast. A crash after the commit
 * loses nothing: recovery finds it `journaled` and relays it.
 */
export class SettlementJournal {
  private readonly handlers = new Map<string, SettlementHandlers>();

  constructor(
    private readonly db: Db,
    private readonly bitcoin: BitcoinBackend,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly failpoint: Failpoint = noFailpoint,
    /** How long after journaling a held settlement is still relayed again (SETTLEMENT_WAIT_HOLD_S). */
    private readonly waitHoldMs = 3_600_000,
  ) {}

  /** One owner per settlement kind: two areas claiming one kind is a wiring mistake, caught at boot. */
  register(kind: string, handlers: SettlementHandlers): void {
    if (this.handlers.has(kind)) throw new Error(`settlement kind ${kind} already has handlers`);
    this.handlers.set(kind, handlers);
  }

  /** Whether this refusal of a never-relayed settlement is held rather than released (SettlementHandlers.holdOnWait). */
  private holds(s: SettlementRow, outcome: RelayOutcome): boolean {
    return (
      outcome.status === 'rejected' &&
      waitsForConfirmation(outcome.policy) &&
      this.handlers.get(s.kind)?.holdOnWait === true &&
      this.clock.now() < s.created_at + this.waitHoldMs
    );
  }

  /**
   * A refusal the journal would not end the settlement on (a policy refusal of bytes the network
   * once took, or a held one), checked against the node: when an input of a member the node does
   * not have is spent by another transaction, the settlement can never land, and it is a conflict.
   * Core judges a package's shape before its inputs: a child spending an output that is gone gets
   * `package-not-child-with-unconfirmed-parents`, as one not yet confirmed does (sim day 9122: a
   * collection accept's parent confirmed, its child left the mempool with its unit's attach, and
   * the bidder's refund then spent the escrow; recovery relayed the package for ever).
   */
  private async judged(s: SettlementRow, txs: SignedTx[], outcome: RelayOutcome, wasRelayed: boolean): Promise<RelayOutcome> {
    // A refusal of bytes the node already holds: a transaction in a block whose outputs are all
    // spent is refused `bad-txns-inputs-missingorspent`, as a conflict would be (sim day 9162: a
    // relay meeting the block that had just mined it). The node is asked for the settlement's own
    // transaction (the last member: the package landed whole when it is there).
    if (outcome.status === 'conflicted' || outcome.status === 'partial' || outcome.status === 'rejected') {
      if (await this.bitcoin.getTransaction(s.txid).catch(() => null)) return { status: 'relayed' };
    }
    if (outcome.status !== 'rejected' || (!wasRelayed && !this.holds(s, outcome))) return outcome;
    const dead = await deadInput(this.db, this.bitcoin, JSON.parse(s.txs) as SignedTx[], txs).catch(() => null);
    if (!dead) return outcome;
    const said = `(the node said: ${outcome.reason})`;
    return dead.why === 'spent'
      ? { status: 'conflicted', reason: `bad-txns-inputs-missingorspent, ${dead.outpoint} is spent by another transaction ${said}` }
      : { status: 'conflicted', reason: `missing-inputs, the source of ${dead.outpoint} is neither in the node's mempool nor in its chain ${said}` };
  }

  /** One relay of what is still worth relaying, judged (above) over the same transactions. */
  private async relayJudged(s: SettlementRow, wasRelayed: boolean): Promise<RelayOutcome> {
    const txs = await this.liveTxs(this.db, s);
    return this.judged(s, txs, await relayOnce(this.bitcoin, txs), wasRelayed);
  }

  /** The hold a journaled settlement is under, or null (not refused, refused otherwise, or not journaled). */
  holdOf(s: SettlementRow): SettlementHold | null {
    const policy = s.state === 'journaled' && s.mempool_reason ? mempoolPolicyOf(s.mempool_reason) : null;
    if (!policy || !waitsForConfirmation(policy)) return null;
    return { mempool_reason: s.mempool_reason!, mempool_policy: policy, until: Math.floor((s.created_at + this.waitHoldMs) / 1000) };
  }

  async byTxid(db: Db | Tx, txid: string): Promise<SettlementRow | undefined> {
    return (await settlementByTxid(db, txid)).rows[0] as SettlementRow | undefined;
  }

  async byId(id: string): Promise<SettlementRow | undefined> {
    return this.db.selectFrom('settlements').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Journals signed bytes and claims every outpoint they spend, inside the
   * caller's transaction. Throws ClaimLost when any outpoint is held by another
   * live settlement (the caller's transaction then rolls back whole: all or none).
   */
  async journal(tx: Tx, input: { kind: string; ref_id: string; txs: SignedTx[]; claims: string[] }): Promise<SettlementRow> {
    return this.journalWith(tx, input, () => Promise.resolve(input.txs));
  }

  /**
   * The same, for bytes that can only be completed once the claims are held: the claims are
   * taken first, then `sign` runs (a co-signer that must never sign for a settlement that lost
   * its claims: the collection-offer accept), then the settlement row is written — all in the
   * caller's transaction, so a failure anywhere leaves nothing behind.
   */
  async journalWith(tx: Tx, input: { kind: string; ref_id: string; claims: string[]; relayNext?: boolean }, sign: () => Promise<SignedTx[]>): Promise<SettlementRow> {
    const now = this.clock.now();
    const id = `stl_${crypto.randomBytes(12).toString('hex')}`;
    // One statement takes every claim. Sorted, so two settlements over the same outpoints lock
    // them in the same order; an outpoint another live settlement holds is left out of what
    // comes back (PostgreSQL waits for a claimer still in flight, as a plain insert would).
    const outpoints = [...new Set(input.claims)].sort();
    if (outpoints.length) {
      const taken = (
        await insertRows(
          tx,
          'outpoint_claims',
          outpoints.map((outpoint) => ({ outpoint, settlement_id: id, created_at: now })),
          { conflictDoNothing: 'outpoint', returning: 'outpoint' },
        )
      ).rows as Array<{ outpoint: string }>;
      if (taken.length !== outpoints.length) {
        const got = new Set(taken.map((r) => r.outpoint));
        throw new ClaimLost(outpoints.find((o) => !got.has(o))!);
      }
    }
    const txs = await sign();
    const main = txs[txs.length - 1];
    if (!main) throw new Error('journal: no transaction');
    const row: SettlementRow = {
      id,
      kind: input.kind,
      ref_id: input.ref_id,
      state: 'journaled',
      txs: JSON.stringify(txs),
      txid: main.txid,
      is_package: txs.length > 1 ? 1 : 0,
      // `relayNext`: the caller relays right after its commit (relayJournaled), so the first
      // attempt is counted here rather than by a write of its own (attempts is a count for
      // operators; a crash before that relay counts one attempt never made).
      attempts: input.relayNext ? 1 : 0,
      last_error: null,
      mempool_reason: null,
      created_at: now,
      updated_at: now,
      relayed_at: null,
      confirmed_height: null,
      confirmed_hash: null,
      confirmed_at: null,
    };
    await insertRows(tx, 'settlements', [row]);
    await insertRows(
      tx,
      'settlement_members',
      txs.map((t, position) => ({ settlement_id: id, position, txid: t.txid, state: 'pending' as const, reason: null, updated_at: now })),
    );
    return row;
  }

  /** Which of these outpoints a live settlement holds. */
  async claimed(db: Db | Tx, outpoints: string[]): Promise<Set<string>> {
    if (!outpoints.length) return new Set();
    const rows = await db.selectFrom('outpoint_claims').select('outpoint').where('outpoint', 'in', outpoints).execute();
    return new Set(rows.map((r) => r.outpoint));
  }

  /** Broadcasts a journaled settlement once and records what the node said. */
  async relay(id: string): Promise<RelayOutcome> {
    const s = await this.byId(id);
    if (!s) throw new Error(`journal: no settlement ${id}`);
    if (s.state === 'relayed' || s.state === 'confirmed') return { status: 'relayed' };
    if (s.state === 'rejected') {
      // Answer the stored refusal with its policy class, as the first answer had it.
      const reason = s.mempool_reason ?? 'rejected';
      return { status: 'rejected', reason, policy: mempoolPolicyOf(reason) };
    }
    if (s.state === 'conflicted') return { status: 'conflicted', reason: s.mempool_reason ?? 'conflict' };
    await this.db.updateTable('settlements').set({ attempts: s.attempts + 1, updated_at: this.clock.now() }).where('id', '=', id).execute();
    const outcome = await this.relayJudged(s, false);
    return (await this.apply(s, outcome, false)).outcome;
  }

  /**
   * The first relay of a settlement this process has just journaled and committed (journalWith
   * with `relayNext`), from the row as written: relay() less its read of the row and its write of
   * the attempt count, and a commit less. A release by recovery meanwhile is no worse off than
   * with relay(): its read, too, comes after the commit and before the broadcast, and nothing
   * holds the row between the two. Returns the outcome and, when this relay moved it to
   * `relayed`, the row as it now stands (undefined when another writer got there first: read it).
   */
  async relayJournaled(s: SettlementRow): Promise<{ outcome: RelayOutcome; after?: SettlementRow }> {
    if (s.state !== 'journaled') throw new Error(`journal: settlement ${s.id} is ${s.state}, not just journaled`);
    return this.apply(s, await this.relayJudged(s, false), false);
  }

  /**
   * The transactions of a settlement still worth relaying: all of them, less the package members
   * the node refused while others landed (re-sending a refused child with its parent is the same
   * refusal; the parent alone is what must stay on the network).
   */
  async liveTxs(db: Db | Tx, s: SettlementRow): Promise<SignedTx[]> {
    const txs = JSON.parse(s.txs) as SignedTx[];
    if (txs.length === 1) return txs;
    const refused = await db.selectFrom('settlement_members').select('txid').where('settlement_id', '=', s.id).where('state', '=', 'refused').execute();
    const out = new Set(refused.map((r) => r.txid));
    return txs.filter((t) => !out.has(t.txid));
  }

  /** Each member's fate, in submit order (empty for settlements journaled before members were tracked). */
  async members(db: Db | Tx, id: string): Promise<Array<{ position: number; txid: string; state: string; reason: string | null }>> {
    return db.selectFrom('settlement_members').select(['position', 'txid', 'state', 'reason']).where('settlement_id', '=', id).orderBy('position').execute();
  }

  /**
   * `lease`: recovery on the elected instance; its state writes are fenced (a stale leader's fail).
   * Returns the outcome (marked `held` when a wait hold kept the settlement journaled) and, when
   * this call moved it from `journaled` to `relayed`, the row as written.
   */
  private async apply(s: SettlementRow, outcome: RelayOutcome, wasRelayed: boolean, lease?: Lease): Promise<{ outcome: RelayOutcome; after?: SettlementRow }> {
    const now = this.clock.now();
    if (outcome.status === 'relayed') {
      const after = await this.db.transaction().execute(async (tx) => {
        await lease?.check(tx);
        const res = await markRelayed(tx, s.id, now);
        await markMembersRelayed(tx, s.id, now);
        if (Number(res.numAffectedRows) !== 1) return undefined;
        await this.handlers.get(s.kind)?.onRelayed?.(tx, { ...s, state: 'relayed' });
        return { ...s, state: 'relayed' as const, relayed_at: now, updated_at: now, last_error: null };
      });
      return after ? { outcome, after } : { outcome };
    }
    const held = !wasRelayed && this.holds(s, outcome);
    if (outcome.status === 'partial') {
      await this.applyPartial(s, outcome, lease);
    } else if (outcome.status === 'conflicted' || (outcome.status === 'rejected' && !wasRelayed && !held)) {
      // A policy refusal of something the network once accepted proves nothing; only a conflict does.
      this.failpoint('relay-refused-before-release');
      // A refusal proves nothing once the network took the bytes: released only from the state it
      // was judged on (the request that journaled it may have relayed it since this row was read).
      // A conflict is a proof in any live state.
      await this.release(s.id, outcome.status, outcome.reason, lease, outcome.status === 'rejected' ? [s.state] : LIVE);
    } else if (held && outcome.status === 'rejected') {
      // Kept journaled, the claims held; the reason is what the operation reads show while it waits.
      const reason = outcome.reason.slice(0, 500);
      await this.db.updateTable('settlements').set({ last_error: reason, mempool_reason: reason, updated_at: now }).where('id', '=', s.id).where('state', '=', 'journaled').execute();
      if (s.mempool_reason !== reason) this.log.info({ settlement: s.id, kind: s.kind, reason }, 'settlement held: the node waits for a confirmation; recovery relays it again');
      return { outcome: { ...outcome, held: true } };
    } else {
      const error = outcome.status === 'unknown' ? outcome.error : outcome.reason;
      await this.db.updateTable('settlements').set({ last_error: error.slice(0, 500), updated_at: now }).where('id', '=', s.id).execute();
    }
    return { outcome };
  }

  /**
   * Part of a package landed. What landed is on the network and keeps every claim it spends:
   * the settlement is `relayed` and identified from now on by the last member that landed (its
   * block confirms the settlement). Outpoints only the refused members spent are released. The
   * kind's `onPartial` tells the parties, in the same transaction.
   */
  private async applyPartial(s: SettlementRow, outcome: Extract<RelayOutcome, { status: 'partial' }>, lease?: Lease): Promise<void> {
    const now = this.clock.now();
    const txs = JSON.parse(s.txs) as SignedTx[];
    const landed = txs.filter((t) => outcome.landed.includes(t.txid));
    const refused = txs.filter((t) => outcome.refused.some((r) => r.txid === t.txid));
    const main = landed[landed.length - 1];
    if (!main) return;
    const reason = outcome.refused.map((r) => r.reason).join('; ').slice(0, 500);
    await this.db.transaction().execute(async (tx) => {
      await lease?.check(tx);
      const res = await tx
        .updateTable('settlements')
        .set({ state: 'relayed', txid: main.txid, relayed_at: s.relayed_at ?? now, updated_at: now, last_error: null, mempool_reason: reason })
        .where('id', '=', s.id)
        .where('state', 'in', LIVE)
        .where('txid', '=', s.txid)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return;
      await tx.updateTable('settlement_members').set({ state: 'relayed', reason: null, updated_at: now }).where('settlement_id', '=', s.id).where('txid', 'in', landed.map((t) => t.txid)).execute();
      for (const r of outcome.refused) {
        await tx.updateTable('settlement_members').set({ state: 'refused', reason: r.reason.slice(0, 500), updated_at: now }).where('settlement_id', '=', s.id).where('txid', '=', r.txid).execute();
      }
      const kept = new Set(spentOutpoints(landed));
      const free = spentOutpoints(refused).filter((o) => !kept.has(o) && !landed.some((t) => o.startsWith(`${t.txid}:`)));
      if (free.length) await tx.deleteFrom('outpoint_claims').where('settlement_id', '=', s.id).where('outpoint', 'in', free).execute();
      const after: SettlementRow = { ...s, state: 'relayed', txid: main.txid, relayed_at: s.relayed_at ?? now, updated_at: now, mempool_reason: reason };
      if (s.state === 'journaled') await this.handlers.get(s.kind)?.onRelayed?.(tx, after);
      await this.handlers.get(s.kind)?.onPartial?.(tx, after, outcome.refused);
      this.log.warn({ settlement: s.id, kind: s.kind, landed: outcome.landed, refused: outcome.refused }, 'package partly relayed');
    });
  }

  /** Ends a live settlement and releases its claims, atomically with the domain's own release. */
  async release(id: string, outcome: 'rejected' | 'conflicted', reason: string, lease?: Lease, from: readonly SettlementRow['state'][] = LIVE): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      await lease?.check(tx);
      return this.releaseIn(tx, id, outcome, reason, from);
    });
  }

  /** The release itself, in the caller's transaction: the guarded state change, the claims freed, the kind's onReleased. */
  private async releaseIn(tx: Tx, id: string, outcome: 'rejected' | 'conflicted', reason: string, from: readonly SettlementRow['state'][]): Promise<boolean> {
    const now = this.clock.now();
    const res = await tx
      .updateTable('settlements')
      .set({ state: outcome, mempool_reason: reason.slice(0, 500), updated_at: now })
      .where('id', '=', id)
      .where('state', 'in', [...from])
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    await tx.deleteFrom('outpoint_claims').where('settlement_id', '=', id).execute();
    await tx.updateTable('settlement_members').set({ state: 'refused', reason: reason.slice(0, 500), updated_at: now }).where('settlement_id', '=', id).execute();
    const s = await tx.selectFrom('settlements').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    await this.handlers.get(s.kind)?.onReleased?.(tx, s, outcome, reason);
    this.log.info({ settlement: id, kind: s.kind, outcome, reason }, 'settlement released');
    return true;
  }

  /**
   * A block spent outpoints (`spent`: outpoint → spending txid; inside the indexer's transaction,
   * after its confirmations). A live settlement whose claimed input the block spent by a
   * transaction that is none of its own members can never land: it is released `conflicted`
   * here, before the areas' watchers read the block, so what its release puts back (an offer over
   * a slot the bidder spent) meets this block's spend at once; left to recovery, no later block
   * would retire it.
   */
  async releaseSpentElsewhere(tx: Tx, spent: ReadonlyMap<string, string>, height: number): Promise<number> {
    let released = 0;
    for (const c of await spentElsewhere(tx, spent)) {
      const reason = `bad-txns-inputs-missingorspent: ${c.outpoint} spent by ${c.spender} in block ${height}`;
      if (await this.releaseIn(tx, c.id, 'conflicted', reason, LIVE)) released++;
    }
    return released;
  }

  /** The indexer saw the settlement's txid in a block (inside the indexer's transaction). */
  async markConfirmed(tx: Tx, txid: string, block: { height: number; hash: string; seenAt: number }): Promise<boolean> {
    const s = await this.byTxid(tx, txid);
    if (!s || s.state === 'confirmed') return false;
    if (s.state === 'rejected' || s.state === 'conflicted') {
      // The network mined bytes we had given up on: the chain is the truth. Its outpoints are
      // spent for good, so it holds its claims again wherever nobody else took them meanwhile
      // (a later claimer's bytes now conflict and recovery releases that one), and a reorg that
      // returns it to the mempool keeps them.
      this.log.warn({ settlement: s.id, state: s.state }, 'a released settlement confirmed');
      for (const outpoint of spentOutpoints(JSON.parse(s.txs) as SignedTx[])) {
        await tx
          .insertInto('outpoint_claims')
          .values({ outpoint, settlement_id: s.id, created_at: block.seenAt })
          .onConflict((oc) => oc.column('outpoint').doNothing())
          .execute();
      }
    }
    await tx
      .updateTable('settlements')
      .set({ state: 'confirmed', confirmed_height: block.height, confirmed_hash: block.hash, confirmed_at: block.seenAt, updated_at: block.seenAt })
      .where('id', '=', s.id)
      .execute();
    await this.handlers.get(s.kind)?.onConfirmed?.(tx, { ...s, state: 'confirmed' }, block);
    return true;
  }

  /** A reorg disconnected the block that confirmed these settlements. */
  async unconfirmFrom(tx: Tx, height: number): Promise<number> {
    const rows = await tx.selectFrom('settlements').selectAll().where('state', '=', 'confirmed').where('confirmed_height', '>=', height).execute();
    for (const s of rows) {
      await tx
        .updateTable('settlements')
        .set({ state: 'relayed', confirmed_height: null, confirmed_hash: null, confirmed_at: null, updated_at: this.clock.now() })
        .where('id', '=', s.id)
        .execute();
      await this.handlers.get(s.kind)?.onUnconfirmed?.(tx, { ...s, state: 'relayed' });
    }
    return rows.length;
  }

  /**
   * Recovery: relays every live settlement the network does not know, until it
   * is known or provably dead. Idempotent: the node answers already-known bytes
   * with success. Journaled ones (never seen by the network) go first, and every
   * live settlement is read, a page of `limit` at a time: relayed ones waiting
   * for a block must never keep a journaled one from being relayed. Under a lease (the elected
   * recovery of several instances) every state write checks it in its transaction.
   */
  async recover(limit = 200, lease?: Lease): Promise<{ checked: number; relayed: number; released: number }> {
    let checked = 0;
    let relayed = 0;
    let released = 0;
    for (const state of LIVE) {
      let after: { created_at: number; id: string } | undefined;
      for (;;) {
        const from = after;
        let q = this.db.selectFrom('settlements').selectAll().where('state', '=', state);
        if (from) q = q.where((eb) => eb.or([eb('created_at', '>', from.created_at), eb.and([eb('created_at', '=', from.created_at), eb('id', '>', from.id)])]));
        const page = await q.orderBy('created_at').orderBy('id').limit(limit).execute();
        const r = await this.recoverPage(page, lease);
        checked += page.length;
        relayed += r.relayed;
        released += r.released;
        const last = page[page.length - 1];
        if (!last || page.length < limit) break;
        after = { created_at: last.created_at, id: last.id };
      }
    }
    return { checked, relayed, released };
  }

  private async recoverPage(live: SettlementRow[], lease: Lease | undefined): Promise<{ relayed: number; released: number }> {
    let relayed = 0;
    let released = 0;
    for (const s of live) {
      if (s.state === 'relayed' && (await this.bitcoin.getTransaction(s.txid))) continue;
      const outcome = await this.relayJudged(s, s.state === 'relayed');
      await this.db.updateTable('settlements').set({ attempts: s.attempts + 1 }).where('id', '=', s.id).execute();
      const applied = (await this.apply(s, outcome, s.state === 'relayed', lease)).outcome;
      if (outcome.status === 'relayed') relayed++;
      if (outcome.status === 'conflicted' || (applied.status === 'rejected' && s.state === 'journaled' && !applied.held)) released++;
    }
    return { relayed, released };
  }
}
