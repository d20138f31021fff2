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
import { acceptCollectionOffer, cancelCollectionOffer, hardCancelCollectionOffer, placeCollectionOffer, type CancelCollectionOfferInput } from './flows/policy.js';
import { list, reprice, rotate, withdrawCosigned } from './flows/listing.js';
import { sseStream, type StreamOptions } from './stream.js';
import { Webhooks } from './webhooks.js';
import { Artists } from './artists.js';
import { OfferUpkeep } from './offer-upkeep.js';
import { prepareUnit, priceDraft } from './flows/prepare.js';
import type { Network } from './psbt.js';
import { items } from './paging.js';
import { tail, TAIL_PAGE, type LogEntry, type LogRead, type TailOptions } from './tail.js';
import { Transport, type CallInput, type TransportOptions } from './transport.js';
import type { CheckoutQuote } from './generated/api.js';
import { verifyCheckoutPsbt, type CheckoutIntent } from './verify.js';
import { checkFields, noSecondArgument } from './fields.js';
import { FIELDS } from './flow-fields.js';
import { decodeAddress, networkOfAddress, normalizeNetwork } from './network.js';
import { Devnet } from './devnet.js';

export type { WalletSigner, Progress } from './flow.js';

/** What `GET /v1/meta` says of the market (the fields the client reads; the rest kept as sent). */
export interface MarketMeta {
  network: string;
  api_version?: string;
  build_version?: string;
  [k: string]: unknown;
}

/** What a buy takes: the API's names (`lines`, `delivery_mode`, `delivery_address`), the client's bound, progress. */
export interface BuyInput {
  /** The listings chosen, each with the most the caller will pay for it. */
  lines: Array<{ listing_id: string; max_price_sats: number }>;
  delivery_mode: 'detached' | 'attached';
  /** Default: the signed-in wallet's address. */
  delivery_address?: string;
  /** The most that may leave the wallet (prices, fees, network fee); the PSBT is refused unsigned above it. */
  maxSpendSats: number;
  progress?: Progress;
}

/** Every flow's input also takes `progress` (steps as they happen). */
type WithProgress<P> = P & { progress?: Progress };

/** A checkout operation as the contract returns it (quoted, broadcast, confirmed, …). */
export type Operation = CheckoutQuote;

export class MarketClient {
  readonly http: Transport;
  private token: string | undefined;
  private signer: WalletSigner | undefined;

  /** The network the caller expects (checked against the market's); once resolved, the market's. */
  private expected: Network | undefined;
  private resolved: Network | undefined;
  private metaRead: Promise<MarketMeta | null> | undefined;

  /**
   * `network` is the network the caller expects: the client reads `GET /v1/meta` once and refuses
   * a market on another network (`network_mismatch`). Without it the client takes the market's.
   */
  constructor(options: Omit<TransportOptions, 'token' | 'onUnauthorized'> & { network?: Network }) {
    this.http = new Transport({ ...options, token: () => this.token, onUnauthorized: () => this.refresh() });
    this.expected = options.network;
  }

  /** The network addresses are read on: the market's once known, else the one asked for. */
  get network(): Network | undefined {
    return this.resolved ?? this.expected;
  }

  /**
   * The market's `GET /v1/meta` (network, API and build version, fee floor, signer keys, limits),
   * read once. `null` when the server does not serve it (a server older than the route): the
   * client then takes the network from its `network` option or the wallet's address.
   */
  meta(): Promise<MarketMeta | null> {
    this.metaRead ??= this.http.request<MarketMeta>('GET', '/v1/meta').then(
      (r) => r.result,
      (e: unknown) => {
        this.metaRead = undefined;
        if (e instanceof MarketError && (e.code === 'not_found' || e.code === 'method_not_allowed' || e.status === 404)) return null;
        throw e;
      },
    );
    return this.metaRead;
  }

  /**
   * Settles the network before anything is signed: the market's (from /v1/meta) must be the one
   * asked for; the wallet's address must be on it. `network_mismatch` otherwise, naming the field.
   */
  async ready(signer: WalletSigner | undefined = this.signer): Promise<Network> {
    if (!this.resolved) {
      const meta = await this.meta();
      const served = meta ? normalizeNetwork(meta.network) : undefined;
      if (meta && !served) throw new MarketError('invalid_response', `GET /v1/meta names an unknown network ${JSON.stringify(meta.network)}`, 200);
      if (served && this.expected && served !== this.expected) {
        throw new MarketError('network_mismatch', `the market serves ${served}; this client was made for ${this.expected}`, null, { field: 'network', network: served, expected: this.expected });
      }
      const fromWallet = signer ? networkOfAddress(signer.address) : undefined;
      const network = served ?? this.expected ?? fromWallet;
      if (!network) throw new MarketError('network_mismatch', 'the market does not serve GET /v1/meta and no network was given: pass `network` to the client', null, { field: 'network' });
      this.resolved = network;
    }
    if (signer) {
      decodeAddress(signer.address, this.resolved, 'address');
      const walletNet = (signer as { network?: unknown }).network;
      if (typeof walletNet === 'string' && walletNet !== this.resolved) {
        throw new MarketError('network_mismatch', `the wallet was made for ${walletNet}; the market is on ${this.resolved}`, null, { field: 'network', network: this.resolved, wallet_network: walletNet });
      }
    }
    return this.resolved;
  }

  private flow(progress?: Progress): FlowContext {
    if (!this.signer) throw new MarketError('unauthenticated', 'sign in first (market.signIn(wallet))', null);
    return { http: this.http, signer: this.signer, ...(this.network ? { network: this.network } : {}), ...(progress ? { progress } : {}) };
  }

  /**
   * A flow as a method of the client: its fields checked (the API's names; `progress` among
   * them), the network settled, then run with the signed-in wallet.
   */
  private step<K extends keyof typeof FIELDS, P, R>(name: K, flow: (ctx: FlowContext, p: P) => Promise<R>): (p: WithProgress<P>, ...rest: never[]) => Promise<R> {
    return async (p: WithProgress<P>, ...rest: never[]) => {
      noSecondArgument(name, rest[0]);
      checkFields(name, p, { ...FIELDS[name], progress: true });
      const { progress, ...input } = p;
      await this.ready();
      return flow(this.flow(progress), input as P);
    };
  }

  /** The devnet's controls (faucet, mine, sync): for sandboxes and tests, absent on a real market. */
  get devnet(): Devnet {
    return new Devnet(this.http);
  }

  /** List a balance held at the wallet's address: attach and list in one signed submission, then wait for `completed`. */
  readonly attachAndList = this.step('attachAndList', attachAndList);

  /** Fund `slots` exact-price outputs and place them over the targets (every slot backs every target). */
  readonly placeBids = this.step('placeBids', placeBids);

  /** The bidder's exact authorization of one offer over one unit (signed input 0, activated). */
  readonly authorizeExact = this.step('authorizeExact', authorizeExact);

  /** The seller accepts an exact authorization of its unit (parent input 1, and the CPFP child when fees rose). */
  readonly acceptExact = this.step('acceptExact', acceptExact);

  /** The seller counters a bid on its unit at a higher price. */
  readonly counter = this.step('counter', counter);

  /** The bidder takes a counter: a bid at its price naming its unit, then the authorization. */
  async takeCounter(c: Counter, p: WithProgress<Parameters<typeof takeCounter>[2]>, ...rest: never[]) {
    noSecondArgument('takeCounter', rest[0]);
    checkFields('takeCounter', p, { ...FIELDS.takeCounter, progress: true });
    const { progress, ...input } = p;
    await this.ready();
    return takeCounter(this.flow(progress), c, input);
  }

  /** A collection (policy) offer: parent signed, every alternative's child pre-signed, placed. */
  readonly placeCollectionOffer = this.step('placeCollectionOffer', placeCollectionOffer);

  /** Sell a unit into a collection offer (input 1 of the child; the market signer co-signs). */
  readonly acceptCollectionOffer = this.step('acceptCollectionOffer', acceptCollectionOffer);

  /** Soft-cancel one alternative of a collection offer (`offer_id`), or every alternative of the placement. */
  async cancelCollectionOffer(placed: CancelCollectionOfferInput & { progress?: Progress }, ...rest: never[]) {
    // Takes the placement as `placeCollectionOffer` returned it: only its ids are read, so its other fields are not refused.
    noSecondArgument('cancelCollectionOffer', rest[0]);
    for (const field of ['funding_set_id', 'parent_txid'] as const) {
      if (typeof placed?.[field] !== 'string') throw new MarketError('invalid_request', `cancelCollectionOffer: ${field} is required (pass the placement placeCollectionOffer returned)`, null, { field });
    }
    if (placed.offer_id !== undefined ? typeof placed.offer_id !== 'string' : !Array.isArray(placed.offers) || !placed.offers.length) {
      throw new MarketError('invalid_request', 'cancelCollectionOffer: offer_id (one alternative) or offers (the placement as returned) is required', null, { field: 'offer_id' });
    }
    await this.ready();
    return cancelCollectionOffer(this.flow(placed.progress), { funding_set_id: placed.funding_set_id, parent_txid: placed.parent_txid, ...(placed.offer_id !== undefined ? { offer_id: placed.offer_id } : { offers: placed.offers! }) });
  }

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
  async signIn(signer: WalletSigner, options: { progress?: Progress } = {}): Promise<string> {
    if (typeof options === 'function') throw new MarketError('invalid_request', 'signIn: pass { progress } as its second argument, not a bare function', null, { field: 'progress' });
    checkFields('signIn', options, { progress: true });
    const { progress } = options;
    await this.ready(signer);
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
    await this.ready(signer);
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
  readonly list = this.step('list', list);

  /** Reprice an open listing (the new half verified before signing). */
  readonly reprice = this.step('reprice', reprice);

  /** Move an exposed listing's unit to a fresh output of the seller's own (voids the broadcast half). */
  readonly rotate = this.step('rotate', rotate);

  /** Take a co-signed unit back by its key path: the signed transaction, for the wallet to broadcast. */
  readonly withdrawCosigned = this.step('withdrawCosigned', withdrawCosigned);

  /** Hard-cancel a collection offer: the signed self-send of its funding inputs, for the wallet to broadcast. */
  readonly hardCancelCollectionOffer = this.step('hardCancelCollectionOffer', hardCancelCollectionOffer);

  /** Attach a balance to a fresh output of the wallet's own, not listed (the attach verified before signing). */
  readonly prepareUnit = this.step('prepareUnit', prepareUnit);

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

  /**
   * A live tail of the public feed (`address` omitted) or of the session's own feed: the feed's
   * ordered log, oldest first, each entry once; an event comes again when it changes (a sale's
   * `confirmed_at`: its confirmation), the later entry wins. See tail.ts.
   */
  tail(opts: Omit<TailOptions, 'read'> & { address?: string; query?: Record<string, string | number | undefined> } = {}) {
    const path = opts.address ? `/v1/address/${encodeURIComponent(opts.address)}/events` : '/v1/events';
    const limit = opts.limit ?? (typeof opts.query?.limit === 'number' ? opts.query.limit : TAIL_PAGE);
    const get = (q: Record<string, string | number | undefined>) =>
      this.http.request<LogEntry[]>('GET', path, { query: { ...opts.query, limit, ...q } }).then((r) => r.body as unknown as LogRead);
    const read = async (after: number | undefined): Promise<LogRead> => {
      if (after !== undefined) return get({ after });
      if (!opts.address) return get({ tail: 'true' });
      // The owner's log has no `tail`: read it through from its oldest retained entry.
      let page = await get({ after: 0 });
      while (page.result.length >= limit) page = await get({ after: page.next_after });
      return page;
    };
    return tail({ ...opts, limit, read });
  }

  /** The saved checkout operation (safe to read at any time). */
  async operation(id: string): Promise<Operation> {
    return (await this.http.call('GET /v1/checkout/quotes/{id}', { params: { id } })).result;
  }

  /**
   * The saved accept of an exact offer (the seller's; safe to read at any time): after an uncertain
   * accept reply, read it before anything else; `failed` with `claims_released` means accept again.
   */
  async exactAcceptStatus(authorizationId: string) {
    return (await this.http.call('GET /v1/exact-offer-authorizations/{id}/accept', { params: { id: authorizationId } })).result;
  }

  /** The saved accept of a collection offer (the seller's, by `accept_id`; safe to read at any time). */
  async policyAcceptStatus(acceptId: string) {
    return (await this.http.call('GET /v1/policy-accepts/{id}', { params: { id: acceptId } })).result;
  }

  /**
   * Buy: quote → verify the PSBT against the intent → sign → complete. On an uncertain outcome the
   * saved operation is read instead of signing again; if it still cannot tell, the error carries
   * the signed bytes to resubmit (identical bytes are idempotent).
   */
  async buy(input: BuyInput, ...rest: never[]): Promise<Operation> {
    noSecondArgument('buy', rest[0]);
    checkFields('buy', input, { lines: true, delivery_mode: true, delivery_address: true, maxSpendSats: true, progress: true });
    if (!Array.isArray(input.lines)) throw new MarketError('invalid_request', 'buy: lines must be an array', null, { field: 'lines' });
    input.lines.forEach((l, i) => checkFields('buy', l, { listing_id: true, max_price_sats: true }, `lines[${i}]`));
    const network = await this.ready();
    const signer = this.flow().signer;
    const { progress } = input;
    const delivery = { mode: input.delivery_mode, address: input.delivery_address ?? signer.address };
    decodeAddress(delivery.address, network, 'delivery_address');
    const intent: CheckoutIntent = { lines: input.lines, delivery, maxSpendSats: input.maxSpendSats, network, buyer: signer.address };
    const q = (await this.http.call('POST /v1/checkout/quotes', { body: { lines: intent.lines.map((l) => ({ listing_id: l.listing_id, max_price_sats: l.max_price_sats })), delivery_mode: delivery.mode, delivery_address: delivery.address } })).result;
    progress?.('quoted', { id: q.id });
    verifyCheckoutPsbt(q, intent);
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
