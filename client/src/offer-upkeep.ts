/**
 * The upkeep of offers, signature-free: a bidder reads and cancels its placements and offers,
 * reviews which funding outputs a cancellation freed (a soft cancel only stops the market matching
 * them: the coins stay spendable by the published authorizations until spent elsewhere), places
 * bids over exact-price outputs it already holds, and cancels an exact authorization; a seller
 * withdraws a counter and checks a selection of authorizations before accepting them.
 */
import type { Routes } from './generated/api.js';
import type { Transport } from './transport.js';

export type PlaceOverOutputs = Routes['POST /v1/offers']['body'];

export class OfferUpkeep {
  constructor(private readonly http: Transport) {}

  /** A placement: its slots, targets and offer ids. */
  async placement(id: string) {
    return (await this.http.call('GET /v1/offer-placements/{id}', { params: { id } })).result;
  }

  /** Bids over outputs the bidder already holds, each paying its address exactly the price (nothing to sign). */
  async placeOver(body: PlaceOverOutputs) {
    return (await this.http.call('POST /v1/offers', { body })).result;
  }

  /** Cancels one offer (its slot's other offers stay live). */
  async cancel(offerId: string) {
    return (await this.http.call('POST /v1/offers/{id}/cancel', { params: { id: offerId } })).result;
  }

  /** Cancels several offers; each answers on its own (`ok`, or `ok: false` with its `code`). */
  async cancelMany(offerIds: string[]) {
    return (await this.http.call('POST /v1/offer-cancellations', { body: { offer_ids: offerIds } })).result;
  }

  /** Cancels every offer of a placement. */
  async cancelPlacement(id: string) {
    return (await this.http.call('POST /v1/offer-placements/{id}/cancel', { params: { id } })).result;
  }

  /** Which funding outputs of cancelled offers are still committed by a live sibling offer. */
  async review(offerIds: string[]) {
    return (await this.http.call('POST /v1/offer-cancellations/review', { body: { offer_ids: offerIds } })).result;
  }

  /** The bidder withdraws an exact authorization: the seller can no longer accept it. */
  async cancelAuthorization(id: string) {
    return (await this.http.call('POST /v1/exact-offer-authorizations/{id}/cancel', { params: { id } })).result;
  }

  /** The seller withdraws its counter. */
  async withdrawCounter(id: string) {
    return (await this.http.call('POST /v1/counters/{id}/withdraw', { params: { id } })).result;
  }

  /** The seller checks authorizations it means to accept together (each `ok` or its refusal code). */
  async validateSelection(authorizationIds: string[]) {
    return (await this.http.call('POST /v1/exact-offer-selections/validate', { body: { authorization_ids: authorizationIds } })).result;
  }
}
