/**
 * Changing live listings: reprice (a new signed half; the stored one is overwritten in the
 * same guarded statement), delist (the stored half wiped in the same write that ends the
 * listing), and the batch of both plus reprice templates.
 *
 * Every write is a single conditional UPDATE `WHERE state IN ('pending','active')` and not
 * expired: a listing a buyer claimed meanwhile is `reserved` and answers 409 state_changed.
 */
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { ApiError, type ErrorCode, type ErrorExtras } from '../../http/errors.js';
import { nowSeconds } from '../../clock.js';
import { listingState } from './draft-view.js';
import { newId, type ListingRow, type ListingStore } from './store.js';
import { retryDeadlocks } from '../../store/deadlock.js';
import { endListing, OPEN, repriceListing } from './lifecycle.js';
import { buildListingPsbt } from './templates.js';
import { checkPrice, PROTOCOL_VERSION } from './rules.js';
import { verifyRepriceListing } from './signed.js';
import { sellerScript } from './attach-submit.js';
import { listingCosigned } from './cosigned.js';

/** What a seller delisting an exposed listing must know. */
export const EXPOSURE_WARNING =
  'This listing\'s signed half was broadcast in a checkout that failed, so anyone may still buy the unit at that price: delisting does not void the signature. Only moving the unit does (POST /v1/listings/{id}/rotation, or any spend of the asset UTXO).';

/** One refused item; `extras` (the refusal's documented extras, e.g. minimum_price_sats) travel up to the envelope for the first refusal. */
export type Refusal = { index: number; listing_id: string; status: number; code: ErrorCode; error: string; extras?: ErrorExtras };
export type Outcome =
  | { index: number; listing_id: string; ok: true; state: ListingRow['state']; price_sats: number; version: number }
  | { index: number; listing_id: string; ok: false; code: 'state_changed'; error: string };

const refusalOf = (index: number, listing_id: string, e: unknown): Refusal => {
  if (e instanceof ApiError) return { index, listing_id, status: e.status, code: e.code, error: e.message, extras: e.extras };
  throw e;
};

export class ListingMaintenance {
  constructor(
    private readonly ctx: Context,
    private readonly store: ListingStore,
  ) {}

  private now = () => nowSeconds(this.ctx.clock);

  /** A listing still open (not ended, sold, reserved or past its expiry), else 409 state_changed. */
  private requireOpen(l: ListingRow): void {
    const s = listingState(l, this.now());
    if (!OPEN.includes(s.state)) throw new ApiError('state_changed', `the listing is ${s.state}${s.end_reason ? ` (${s.end_reason})` : ''}`, { state: s.state });
  }

  /** Verifies a signed reprice half; returns the new price. */
  private verifyReprice(l: ListingRow, psbtHex: string, field: string): number {
    const { price_sats } = verifyRepriceListing(
      psbtHex,
      { txid: l.utxo_txid, vout: l.utxo_vout, value_sats: l.utxo_value_sats },
      sellerScript(l.seller, this.ctx),
      l.seller,
      this.ctx.config.NETWORK,
      field,
      listingCosigned(l, this.ctx.config.NETWORK),
    );
    checkPrice(price_sats);
    return price_sats;
  }

  /** The guarded write: new price and signed half in one statement. */
  private async writeReprice(l: ListingRow, price: number, psbtHex: string): Promise<number | null> {
    return repriceListing(this.store.db, l, price, psbtHex, this.now());
  }

  async reprice(l: ListingRow, psbtHex: string): Promise<{ id: string; price_sats: number; version: number }> {
    this.requireOpen(l);
    const price = this.verifyReprice(l, psbtHex, 'body.psbt_hex');
    const version = await this.writeReprice(l, price, psbtHex);
    if (version === null) throw new ApiError('state_changed', 'the listing changed meanwhile (claimed by a buyer, delisted or expired)');
    return { id: l.id, price_sats: price, version };
  }

  /**
   * Ends an open listing, or an exposed one: the market forgets it, but its half is public and
   * stays valid until the unit moves, which the answer says (`exposure_warning`).
   */
  async delist(l: ListingRow): Promise<{ id: string; state: 'ended'; end_reason: 'owner'; exposure_warning?: string }> {
    const exposed = l.state === 'exposed';
    if (!exposed) this.requireOpen(l);
    const ok = await this.store.db.transaction().execute((tx) => endListing(tx, l, 'owner', this.now(), exposed ? ['exposed'] : OPEN));
    if (!ok) throw new ApiError('state_changed', 'the listing changed meanwhile (claimed by a buyer, sold or ended)');
    await this.revokeAtSigner([l]);
    return { id: l.id, state: 'ended', end_reason: 'owner', ...(exposed ? { exposure_warning: EXPOSURE_WARNING } : {}) };
  }

  /**
   * Loads every item: the caller's own listings, and a 404 refusal (same as missing) for each
   * missing or foreign one. The caller adds its own refusals, so `refused_listings` lists every
   * refused item, and refuses the whole batch when there is any.
   */
  private async owned(me: string, ids: string[]): Promise<{ rows: ListingRow[]; refused: Refusal[] }> {
    if (new Set(ids).size !== ids.length) throw new ApiError('invalid_request', 'body.listings names a listing twice', { field: 'body.listings' });
    const byId = new Map((await this.store.listings(ids)).map((l) => [l.id, l]));
    const refused: Refusal[] = [];
    const rows: ListingRow[] = [];
    ids.forEach((id, index) => {
      const l = byId.get(id);
      if (!l || l.seller !== me) refused.push({ index, listing_id: id, status: 404, code: 'not_found', error: 'No such listing' });
      else rows.push(l);
    });
    return { rows, refused };
  }

  async batchPreflight(me: string, items: { listing_id: string; price_sats: number }[]) {
    const { rows, refused } = await this.owned(me, items.map((i) => i.listing_id));
    const indexOf = new Map(items.map((i, index) => [i.listing_id, index]));
    for (const l of rows) {
      const index = indexOf.get(l.id)!;
      try {
        this.requireOpen(l);
        checkPrice(items[index]!.price_sats);
      } catch (e) {
        refused.push(refusalOf(index, l.id, e));
      }
    }
    // Refuse before reading the drafts: with every item refused, `rows` is empty, and an empty
    // `IN ()` is a syntax error on PostgreSQL (SQLite accepts it).
    refuseAll(refused, items.length);
    const drafts = new Map(
      (await this.store.db.selectFrom('listing_drafts').select(['id', 'seller_tap_key']).where('id', 'in', rows.map((r) => r.draft_id)).execute()).map((d) => [d.id, d.seller_tap_key]),
    );
    return rows.map((l, index) => {
      const price = items[index]!.price_sats;
      const tapKey = drafts.get(l.draft_id);
      return {
        operation_id: newId('op'),
        protocol_version: PROTOCOL_VERSION as typeof PROTOCOL_VERSION,
        listing_id: l.id,
        seller: l.seller,
        asset: l.asset,
        quantity_raw: l.quantity_raw,
        current_price_sats: l.price_sats,
        marketplace_expires_at: l.expires_at,
        asset_utxo: { txid: l.utxo_txid, vout: l.utxo_vout, utxo_value_sats: l.utxo_value_sats },
        listing: {
          psbt_hex: buildListingPsbt({
            txid: l.utxo_txid, vout: l.utxo_vout, utxoValueSats: l.utxo_value_sats, sellerScript: sellerScript(l.seller, this.ctx), priceSats: price,
            tapInternalKey: tapKey ? hex.decode(tapKey) : null,
            cosigned: listingCosigned(l, this.ctx.config.NETWORK),
          }),
          signer_address: l.seller,
          inputs_to_sign: [0],
          sighash: 'SINGLE|ANYONECANPAY' as const,
          price_sats: price,
          expires_at: l.expires_at,
        },
      };
    });
  }

  /** Every signed half is verified before any write; then one guarded update per listing. */
  async batchReprice(me: string, items: { listing_id: string; psbt_hex: string }[]): Promise<Outcome[]> {
    const { rows, refused } = await this.owned(me, items.map((i) => i.listing_id));
    const indexOf = new Map(items.map((i, index) => [i.listing_id, index]));
    const prices = rows.map((l) => {
      const index = indexOf.get(l.id)!;
      try {
        return this.verifyReprice(l, items[index]!.psbt_hex, `body.listings[${index}].psbt_hex`);
      } catch (e) {
        refused.push(refusalOf(index, l.id, e));
        return 0;
      }
    });
    refuseAll(refused, items.length);
    const out: Outcome[] = [];
    for (const [index, l] of rows.entries()) {
      const version = listingState(l, this.now()).state === 'ended' ? null : await this.writeReprice(l, prices[index]!, items[index]!.psbt_hex);
      out.push(
        version === null
          ? { index, listing_id: l.id, ok: false, code: 'state_changed', error: 'the listing is no longer open (claimed by a buyer, ended or expired)' }
          : { index, listing_id: l.id, ok: true, state: l.state, price_sats: prices[index]!, version },
      );
    }
    return out;
  }

  /**
   * A delisted co-signed listing is recorded at the signer too, which then never co-signs it. The
   * ended row already stops every checkout (its claim needs an open listing), so a signer that
   * cannot be reached now only loses this second guard: logged, not refused.
   */
  private async revokeAtSigner(ended: ListingRow[]): Promise<void> {
    for (const l of ended.filter((x) => x.protocol_subtype === 'cosigned')) {
      await this.ctx.signer.revokeListing(l.id, l.utxo_outpoint).catch((e: unknown) => {
        this.ctx.logger.warn({ listing_id: l.id, err: e instanceof Error ? e.message : String(e) }, 'co-signed listing delisted; the market signer did not record it');
      });
    }
  }

  async batchDelist(me: string, ids: string[]): Promise<Outcome[]> {
    const { rows, refused } = await this.owned(me, ids);
    refuseAll(refused, ids.length);
    const at = this.now();
    // Ended in id order, the order a checkout's claim locks them in (claimListings): in request
    // order, a batch naming a cart's listings the other way round closed a cycle with its claim,
    // and PostgreSQL aborted whichever waited first. A victim of another kind's cycle is run
    // again whole. The answer keeps the request's order.
    const byId = [...rows.entries()].sort(([, a], [, b]) => a.id.localeCompare(b.id));
    const out = await retryDeadlocks(() =>
      this.store.db.transaction().execute(async (tx) => {
        const out: Outcome[] = [];
        for (const [index, l] of byId) {
          const from = l.state === 'exposed' ? ['exposed' as const] : OPEN;
          const open = from.includes(listingState(l, at).state);
          const ok = open && (await endListing(tx, l, 'owner', at, from));
          out[index] = ok
            ? { index, listing_id: l.id, ok: true, state: 'ended', price_sats: l.price_sats, version: l.version }
            : { index, listing_id: l.id, ok: false, code: 'state_changed', error: `the listing is ${listingState(l, at).state}, not open` };
        }
        return out;
      }),
    );
    await this.revokeAtSigner(rows.filter((_, i) => out[i]!.ok));
    return out;
  }
}

/** Nothing in the batch changes: the first refusal sets the status and code; all are listed. */
function refuseAll(refused: Refusal[], total: number): void {
  refused.sort((a, b) => a.index - b.index);
  const first = refused[0];
  if (!first) return;
  // The first refusal sets the status and code, and its extras (minimum_price_sats…) sit in the envelope as its code promises.
  const { field: _field, ...extras } = first.extras ?? {};
  const listed = refused.map(({ extras: _e, ...r }) => r);
  throw new ApiError(first.code, `${refused.length} of ${total} listings refused; nothing was changed`, { ...extras, refused_listings: listed }, { status: first.status });
}
