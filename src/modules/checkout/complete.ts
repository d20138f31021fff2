/**
 * POST /v1/checkout/quotes/{id}/complete: verify the buyer's signed PSBT, then in ONE database
 * transaction claim every listing (a guarded `active → reserved` on the quoted version), journal
 * the signed bytes with claims on every input, and write one pending fill per listing; only after
 * the commit is the transaction broadcast. The first valid signature wins: a listing reserved,
 * repriced, delisted or claimed by any other settlement meanwhile is 409 checkout_changed and
 * nothing is written or broadcast.
 *
 * The same signed bytes again answer the operation as it stands (re-relaying a settlement still
 * journaled); other bytes for a completed quote are 409 state_changed.
 */
import crypto from 'node:crypto';
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { nowSeconds } from '../../clock.js';
import { psbtBytes } from '../../bitcoin/psbt.js';
import { ClaimLost, type SettlementRow } from '../../settlement/journal.js';
import type { RelayOutcome } from '../../settlement/relay.js';
import type { EndsOffers } from '../../trade/coins.js';
import { relayOutcomeError } from '../../settlement/outcome-error.js';
import { mempoolPolicyOf } from '../../chain/errors.js';
import { listingState } from '../listings/index.js';
import type { ListingRow } from '../listings/index.js';
import { addSellers, buyerHalf, withSellers } from '../../trade/signed.js';
import { cosignCheckout } from './cosign.js';
import { quotedTransaction } from './quoted.js';
import { checkFreshUnits } from './fresh-units.js';
import type { Tx } from '../../store/db.js';
import { compiledOnce } from '../../store/compiled.js';
import { retryDeadlocks } from '../../store/deadlock.js';
import { quoteLines, type CheckoutStore, type QuoteLine, type QuoteRow } from './store.js';
import { recordFills } from '../../trade/fills.js';
import { claimListings } from '../listings/index.js';
import { operationView, type OperationView } from './view.js';

// Compiled once (store/compiled.ts): quoted → completed, guarded.
const completeQuote = compiledOnce((tx, id: string, settlementId: string, digest: string, now: number) =>
  tx
    .updateTable('checkout_quotes')
    .set({ status: 'completed', settlement_id: settlementId, signed_sha256: digest, completed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'quoted'),
);

const changed = (l: QuoteLine, why: string) =>
  new ApiError('checkout_changed', `listing ${l.listing_id} ${why} since the quote; request a new quote and sign again`, { listing_id: l.listing_id });

/** Still the listing the quote saw: active, same version, not expired, with its seller half. */
function checkUnchanged(line: QuoteLine, l: ListingRow | undefined, now: number): ListingRow {
  if (!l) throw changed(line, 'is gone');
  if (l.version !== line.version) throw changed(line, 'was repriced');
  const s = listingState(l, now);
  if (s.state !== 'active' || !l.signed_psbt) throw changed(line, `is ${s.state === 'active' ? 'no longer signed' : s.state}`);
  return l;
}

/** The journal's verdict on a settlement, as a relay outcome (a released one keeps its policy). */
function storedOutcome(s: SettlementRow): Exclude<RelayOutcome, { status: 'relayed' }> | null {
  if (s.state === 'rejected') return { status: 'rejected', reason: s.mempool_reason ?? 'rejected', policy: mempoolPolicyOf(s.mempool_reason ?? '') };
  if (s.state === 'conflicted') return { status: 'conflicted', reason: s.mempool_reason ?? 'conflict' };
  return null;
}

export class CheckoutCompletion {
  constructor(
    private readonly ctx: Context,
    private readonly store: CheckoutStore,
  ) {}

  private now = () => nowSeconds(this.ctx.clock);

  async view(q: QuoteRow, extra: { skippedOwn?: string[]; endsOffers?: EndsOffers } = {}): Promise<OperationView> {
    const s = q.settlement_id ? await this.ctx.journal.byId(q.settlement_id) : undefined;
    return operationView(q, s, this.now(), await this.tipFor(s), extra);
  }

  /** The indexed tip, read only where the view counts confirmations (a confirmed settlement). */
  private async tipFor(s: SettlementRow | undefined): Promise<number | null> {
    return s?.state === 'confirmed' ? ((await this.ctx.indexer.cursor())?.height ?? null) : null;
  }

  async complete(q: QuoteRow, psbtHex: string): Promise<OperationView> {
    const digest = crypto.createHash('sha256').update(psbtBytes(psbtHex)).digest('hex');
    if (q.status === 'completed') return this.repeat(q, digest);
    if (q.expires_at <= this.now()) throw new ApiError('expired', 'the quote expired; request a new quote and sign again');

    const network = this.ctx.config.NETWORK;
    const lines = quoteLines(q);

    let journaled: { s: SettlementRow; at: number };
    try {
      const now = this.now();
      // The cheap check first: under contention (many buyers, one listing) every loser is
      // refused from this read, before any signature is parsed or verified. The claim in
      // commit() stays the guard; this only spares the work.
      const rows = new Map((await this.store.listings(lines.map((l) => l.listing_id))).map((l) => [l.id, l]));
      const current = lines.map((line) => checkUnchanged(line, rows.get(line.listing_id), now));
      const buyer = buyerHalf(psbtHex, q.psbt, JSON.parse(q.inputs_to_sign) as number[], q.buyer_address, network, { quoted: quotedTransaction(q, current, this.store.halves, network) });
      const sellers = current.map((l, k) => ({
        index: k + 1,
        seller: l.seller,
        listing_id: l.id,
        sig: this.store.halves.signature(l),
        ...(l.cosign_seller_key ? { cosignedKey: hex.decode(l.cosign_seller_key) } : {}),
      }));
      let sign: (tx: Tx) => Promise<{ txid: string; hex: string }>;
      if (current.some((l) => l.protocol_subtype === 'cosigned')) {
        // The market's co-signatures come last, inside the claim transaction (journalWith).
        const merged = addSellers(buyer.merged(), sellers, network);
        sign = (tx) => cosignCheckout(this.ctx, tx, merged, current, q.expected_txid);
      } else {
        const signed = withSellers(buyer, sellers, q.expected_txid, network);
        sign = () => Promise.resolve(signed);
      }
      // Last before the claim: a unit whose confirmation is not final is asked about on the node (fresh-units.ts).
      await checkFreshUnits(this.ctx, this.store.db, current);
      journaled = { s: await this.commit(q, lines, current, q.expected_txid, sign, digest, now), at: now };
    } catch (e) {
      // A concurrent submission for this very quote won: the same bytes are a repeat, others are refused.
      if (!(e instanceof ApiError) || e.code !== 'checkout_changed') throw e;
      const again = await this.store.quote(q.id);
      if (again?.status === 'completed') return this.repeat(again, digest);
      throw e;
    }
    const { s, at } = journaled;
    const { outcome, after } = await this.ctx.journal.relayJournaled(s);
    if (outcome.status !== 'relayed') throw relayOutcomeError(outcome, s.id);
    // The answer from the rows as this request wrote them (the quote's guarded UPDATE matched in
    // the commit; the relay moved the settlement to relayed), not read back; a settlement another
    // writer moved meanwhile (recovery, a block) is read.
    const done: QuoteRow = { ...q, status: 'completed', settlement_id: s.id, signed_sha256: digest, completed_at: at, updated_at: at };
    const settled = after ?? (await this.ctx.journal.byId(s.id));
    return operationView(done, settled, this.now(), await this.tipFor(settled));
  }

  private async commit(q: QuoteRow, lines: QuoteLine[], current: ListingRow[], txid: string, sign: (tx: Tx) => Promise<{ txid: string; hex: string }>, digest: string, now: number): Promise<SettlementRow> {
    // A deadlock's victim is run again whole (store/deadlock.ts): it rolled back, nothing of it
    // holds, and the market signer answers the same transaction again with its recorded signature.
    return retryDeadlocks(() => this.commitOnce(q, lines, current, txid, sign, digest, now));
  }

  private async commitOnce(q: QuoteRow, lines: QuoteLine[], current: ListingRow[], txid: string, sign: (tx: Tx) => Promise<{ txid: string; hex: string }>, digest: string, now: number): Promise<SettlementRow> {
    return this.store.db.transaction().execute(async (tx) => {
      // All lines claimed by one guarded UPDATE (active, the quoted version, not expired) that
      // locks them in id order (claimListings), so two carts sharing listings never deadlock with
      // each other (a transaction of another kind ending several listings still can: commit
      // retries). The guard is the whole check: nothing else of the row is read again here (a
      // listing's outpoint never changes, and its seller half was verified from the read before).
      // A line it did not claim (another settlement won it, or it changed, since that read)
      // refuses the cart, the first such in id order named; the rollback undoes the others.
      const byId = [...lines].sort((a, b) => a.listing_id.localeCompare(b.listing_id));
      const claimed = await claimListings(tx, byId.map((l) => ({ id: l.listing_id, version: l.version })), now);
      const lost = byId.find((l) => !claimed.has(l.listing_id));
      if (lost) throw await this.lostLine(lost, tx, now);
      // An older quote of the same cart can be byte for byte a transaction already journaled and
      // released: the journal holds one settlement per txid, so it cannot settle as quoted.
      if (await this.ctx.journal.byTxid(tx, txid)) {
        throw new ApiError('checkout_changed', 'this transaction was already completed and refused; request a new quote and sign again', { txid });
      }
      const claims = [...(JSON.parse(q.funding) as string[]), ...lines.map((l) => l.utxo_outpoint)];
      let s: SettlementRow;
      try {
        // With the claims held: a co-signed line is signed by the market only for a checkout that won them.
        s = await this.ctx.journal.journalWith(tx, { kind: 'checkout', ref_id: q.id, claims, relayNext: true }, async () => [await sign(tx)]);
      } catch (e) {
        if (e instanceof ClaimLost) {
          throw new ApiError('checkout_changed', `outpoint ${e.outpoint} is already claimed by another settlement; request a new quote`, { outpoint: e.outpoint });
        }
        throw e;
      }
      const fills = lines.map((l) => ({
        settlement_id: s.id,
        txid,
        kind: 'listing' as const,
        ref_id: l.listing_id,
        asset: l.asset,
        asset_longname: l.asset_longname,
        quantity_raw: l.quantity_raw,
        seller: l.seller,
        buyer: q.delivery_address,
        payer: q.buyer_address,
        price_sats: l.price_sats,
        platform_fee_sats: l.platform_fee_sats,
        delivery_mode: q.delivery_mode,
        broadcast_at: now,
      }));
      // The units as claimed above: reserved, at the outpoints read before the claim.
      const units = current.map((l) => ({ id: l.id, state: 'reserved', utxo_txid: l.utxo_txid, utxo_vout: l.utxo_vout }));
      await recordFills(tx, fills, now, units);
      const done = await completeQuote(tx, q.id, s.id, digest, now);
      if (Number(done.numAffectedRows) !== 1) throw new ApiError('checkout_changed', 'the quote was completed meanwhile');
      this.ctx.failpoint('checkout-claim-before-commit');
      return s;
    });
  }

  /** The refusal for a line the claim did not take: why it changed, as the row now reads (within the claim's transaction). */
  private async lostLine(line: QuoteLine, tx: Tx, now: number): Promise<ApiError> {
    const [l] = await this.store.listings([line.listing_id], tx);
    try {
      checkUnchanged(line, l, now);
    } catch (e) {
      if (e instanceof ApiError) return e;
      throw e;
    }
    return changed(line, 'was claimed or changed');
  }

  /** A completed quote submitted again: the same bytes answer the operation; others are refused. */
  private async repeat(q: QuoteRow, digest: string): Promise<OperationView> {
    if (q.signed_sha256 !== digest) {
      throw new ApiError('state_changed', 'this quote was already completed with other signed bytes; read its status (GET /v1/checkout/quotes/{id})', {
        status: 'completed',
      });
    }
    const s = await this.ctx.journal.byId(q.settlement_id!);
    if (!s) throw new Error(`checkout: quote ${q.id} names a missing settlement`);
    const dead = storedOutcome(s);
    if (dead) throw relayOutcomeError(dead, s.id);
    if (s.state === 'journaled') {
      const outcome = await this.ctx.journal.relay(s.id);
      if (outcome.status !== 'relayed') throw relayOutcomeError(outcome, s.id);
    }
    return this.view(q);
  }
}
