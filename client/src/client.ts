/**
 * The market as flows of steps, over Transport. A wallet plugs in as a `WalletSigner`; nothing
 * here holds keys. Each step reports its progress; an uncertain outcome (a timeout, a 502/503 on
 * a completion, broadcast_unknown) is never answered by signing again: the client reads the saved
 * operation and returns what it shows, or throws a MarketError carrying what to resubmit.
 */
import { MarketError } from './errors.js';
import { submitSigned, type FlowContext, type Progress, type WalletSigner } from './flow.js';
import { attachAndList } from './flows/attach-list.js';
import { acceptExact, authorizeExact, counter, placeBids, takeCounter, type Counter } from './flows/offers.js';
import { acceptCollectionOffer, cancelCollectionOffer, hardCancelCollectionOffer, placeCollectionOffer } from './flows/policy.js';
import { list, reprice, rotate, withdrawCosigned } from './flows/listing.js';
import { sseStream, type StreamOptions } from './stream.js';
import { Webhooks } from './webhooks.js';
import { Artists } from './artists.js';
import { OfferUpkeep } from './offer-upkeep.js';
import { prepareUnit, priceDraft } from './flows/prepare.js';
import type { Network } from './psbt.js';
import { items } from './paging.js';
import { tail, type FeedEvent, type TailOptions } from './tail.js';
import { Transport, type CallInput, type TransportOptions } from './transport.js';
import type { CheckoutQuote } from './generated/api.js';
import { verifyCheckoutPsbt, type CheckoutIntent } from './verify.js';

export type { WalletSigner, Progress } from './flow.js';

/** A checkout operation as the contract returns it (quoted, broadcast, confirmed, …). */
export type Operation = CheckoutQuote;

export class MarketClient {
  readonly http: Transport;
  private token: string | undefined;
  private signer: WalletSigner | undefined;

  /** The network addresses are read on (default mainnet). */
  readonly network: Network | undefined;

  constructor(options: Omit<TransportOptions, 'token' | 'onUnauthorized'> & { network?: Network }) {
    this.http = new Transport({ ...options, token: () => this.token, onUnauthorized: () => this.refresh() });
    this.network = options.network;
  }

  private flow(progress?: Progress): FlowContext {
    if (!this.signer) throw new Error('sign in first');
    return { http: this.http, signer: this.signer, ...(this.network ? { network: this.network } : {}), ...(progress ? { progress } : {}) };
  }

  /** A flow as a method of the client: run with the signed-in wallet, reporting to `progress`. */
  private step<P, R>(flow: (ctx: FlowContext, p: P) => R): (p: P, progress?: Progress) => R {
    return (p, progress) => flow(this.flow(progress), p);
  }

  /** List a balance held at the wallet's address: attach and list in one signed submission, then wait for `completed`. */
  readonly attachAndList = this.step(attachAndList);

  /** Fund `slots` exact-price outputs and place them over the targets (every slot backs every target). */
  readonly placeBids = this.step(placeBids);

  /** The bidder's exact authorization of one offer over one unit (signed input 0, activated). */
  readonly authorizeExact = this.step(authorizeExact);

  /** The seller accepts an exact authorization of its unit (parent input 1, and the CPFP child when fees rose). */
  readonly acceptExact = this.step(acceptExact);

  /** The seller counters a bid on its unit at a higher price. */
  readonly counter = this.step(counter);

  /** The bidder takes a counter: a bid at its price naming its unit, then the authorization. */
  takeCounter(c: Counter, p: Parameters<typeof takeCounter>[2], progress?: Progress) {
    return takeCounter(this.flow(progress), c, p);
  }

  /** A collection (policy) offer: parent signed, every alternative's child pre-signed, placed. */
  readonly placeCollectionOffer = this.step(placeCollectionOffer);

  /** Sell a unit into a collection offer (input 1 of the child; the market signer co-signs). */
  readonly acceptCollectionOffer = this.step(acceptCollectionOffer);

  /** Soft-cancel a collection offer's funding set. */
  readonly cancelCollectionOffer = this.step(cancelCollectionOffer);

  /** The seller's inbox of live buyer-authorized offers, every page. */
  exactOffers() {
    const address = this.flow().signer.address;
    return items((cursor) => this.http.call('GET /v1/address/{address}/exact-offers', { params: { address }, query: { ...(cursor ? { cursor } : {}) } }).then((r) => r.body));
  }

  /** The counters made to the bidder, every page. */
  counters() {
    const address = this.flow().signer.address;
    return items((cursor) => this.http.call('GET /v1/address/{address}/counters', { params: { address }, query: { ...(cursor ? { cursor } : {}) } }).then((r) => r.body));
  }

  /** Sign in with a wallet: challenge, message signature, session. The session is renewed on 401 with the same wallet. */
  async signIn(signer: WalletSigner, progress?: Progress): Promise<string> {
    this.signer = signer;
    const c = (await this.http.call('POST /v1/auth/challenge', { body: { address: signer.address } })).result;
    progress?.('sign_message');
    const signature = await signer.signMessage(c.message);
    const v = (await this.http.call('POST /v1/auth/verify', { body: { address: signer.address, issued_at: c.issued_at, ...(c.challenge_id ? { challenge_id: c.challenge_id } : {}), signature } })).result;
    this.token = v.token;
    return v.token;
  }

  /**
   * Sign in with a proof a browser wallet signed at connect time (`message` in the challenge
   * format, bound to the app's origin, at most five minutes old, accepted once). A 401 later
   * renews the session by the challenge path with the same wallet.
   */
  async connect(signer: WalletSigner, message: string): Promise<string> {
    const signature = await signer.signMessage(message);
    const s = (await this.http.call('POST /v1/auth/session', { body: { address: signer.address, message, signature, verification: { method: 'BIP-322', format: 'simple' } } })).result;
    // Only an accepted proof makes this the session's wallet (a refused one leaves the client as it was).
    this.signer = signer;
    this.token = s.token;
    return s.token;
  }

  private async refresh(): Promise<string | undefined> {
    if (!this.signer) return undefined;
    const signer = this.signer;
    this.token = undefined;
    return this.signIn(signer);
  }

  /** Every public event, oldest pages last (the feed's newest-first paging). */
  events(query: Omit<NonNullable<CallInput<'GET /v1/events'>['query']>, 'after'> = {}) {
    return items((cursor) => this.http.call('GET /v1/events', { query: { ...query, ...(cursor ? { cursor } : {}) } }).then((r) => cursorPage(r.body)));
  }

  /**
   * One page of the ordered event log after `seq` (oldest first); continue from `next_after`.
   * A position older than the log's retention is `resync_required`: read the feed anew.
   */
  async eventsAfter(after: number, query: Omit<NonNullable<CallInput<'GET /v1/events'>['query']>, 'after' | 'cursor'> = {}) {
    const body = (await this.http.call('GET /v1/events', { query: { ...query, after } })).body;
    if (!('next_after' in body)) throw new MarketError('invalid_response', 'an after= read answered without next_after', 200);
    return body;
  }

  /**
   * List a unit already attached to one of the seller's outputs (`mode: reuse`), continuing from
   * the draft's next_action: a draft met again is read, never re-signed. Returns the listing.
   */
  readonly list = this.step(list);

  /** Reprice an open listing (the new half verified before signing). */
  readonly reprice = this.step(reprice);

  /** Move an exposed listing's unit to a fresh output of the seller's own (voids the broadcast half). */
  readonly rotate = this.step(rotate);

  /** Take a co-signed unit back by its key path: the signed transaction, for the wallet to broadcast. */
  readonly withdrawCosigned = this.step(withdrawCosigned);

  /** Hard-cancel a collection offer: the signed self-send of its funding inputs, for the wallet to broadcast. */
  readonly hardCancelCollectionOffer = this.step(hardCancelCollectionOffer);

  /** Attach a balance to a fresh output of the wallet's own, not listed (the attach verified before signing). */
  readonly prepareUnit = this.step(prepareUnit);

  /** Give a listing draft made without a price its price (the draft comes back with its listing half). */
  priceDraft(id: string, price_sats: number) {
    return priceDraft(this.flow(), id, price_sats);
  }

  /** Offers' upkeep: placements read and cancelled, bids over held outputs, authorizations and counters withdrawn. */
  get offers(): OfferUpkeep {
    return new OfferUpkeep(this.http);
  }

  /** Artist profiles: reads, and the edit by an eligible signed-in address. */
  get artists(): Artists {
    return new Artists(this.http);
  }

  /** The signed-in address's webhook endpoints. */
  get webhooks(): Webhooks {
    return new Webhooks(this.http, () => this.flow().signer.address);
  }

  /** The public push stream (SSE), resumed across disconnects, deduplicated on event_id. */
  stream(query: Omit<NonNullable<CallInput<'GET /v1/stream/events'>['query']>, 'after'> = {}, o: StreamOptions = {}) {
    return sseStream(this.http, '/v1/stream/events', query, o);
  }

  /** The signed-in address's own push stream (SSE). */
  addressStream(o: StreamOptions = {}) {
    const address = this.flow().signer.address;
    return sseStream(this.http, `/v1/address/${encodeURIComponent(address)}/stream`, {}, o);
  }

  /** A live tail of the public feed (`address` omitted) or of the session's own feed, oldest first, deduplicated. */
  tail(opts: Omit<TailOptions, 'read'> & { address?: string; query?: Record<string, string | number | undefined> } = {}) {
    const path = opts.address ? `/v1/address/${opts.address}/events` : '/v1/events';
    return tail({ ...opts, read: (cursor) => this.http.request<FeedEvent[]>('GET', path, { query: { ...opts.query, cursor } }).then((r) => r.body as { result: FeedEvent[]; next_cursor: string | null }) });
  }

  /** The saved checkout operation (safe to read at any time). */
  async operation(id: string): Promise<Operation> {
    return (await this.http.call('GET /v1/checkout/quotes/{id}', { params: { id } })).result;
  }

  /**
   * Buy: quote → verify the PSBT against the intent → sign → complete. On an uncertain outcome the
   * saved operation is read instead of signing again; if it still cannot tell, the error carries
   * the signed bytes to resubmit (identical bytes are idempotent).
   */
  async buy(intent: Omit<CheckoutIntent, 'buyer'>, progress?: Progress): Promise<Operation> {
    if (!this.signer) throw new Error('sign in first');
    const signer = this.signer;
    const q = (await this.http.call('POST /v1/checkout/quotes', { body: { lines: intent.lines.map((l) => ({ listing_id: l.listing_id })), delivery_mode: intent.delivery.mode, delivery_address: intent.delivery.address } })).result;
    progress?.('quoted', { id: q.id });
    verifyCheckoutPsbt(q, { ...(this.network ? { network: this.network } : {}), ...intent, buyer: signer.address });
    progress?.('verified');
    const signed = await signer.signPsbt(q.psbt_hex!, q.inputs_to_sign, 'ALL');
    progress?.('signed');
    return submitSigned(
      this.flow(progress),
      // Sent once: on an uncertain outcome the saved operation is read before anything is resent.
      async () => (await this.http.call('POST /v1/checkout/quotes/{id}/complete', { params: { id: q.id }, body: { psbt_hex: signed } })).result,
      async () => {
        const op = await this.operation(q.id);
        return op.status === 'quoted' ? undefined : op;
      },
      { quote_id: q.id, psbt_hex: signed },
    );
  }
}

/** The feed answers a cursor page unless asked with after=; a log page here is not the contract. */
function cursorPage<T extends object>(body: T): Extract<T, { next_cursor: unknown }> {
  if (!('next_cursor' in body)) throw new MarketError('invalid_response', 'a feed page answered without next_cursor', 200);
  return body as Extract<T, { next_cursor: unknown }>;
}
