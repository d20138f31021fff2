export { MarketError, templateMismatch, type KnownExtras, type ClientSideCode } from './errors.js';
export { Transport, type FetchLike, type TransportOptions, type RequestOptions, type CallInput, type Reply, type Result } from './transport.js';
export { ReplyValidator, routeOf } from './validate.js';
export type * from './generated/api.js';
export { pages, items } from './paging.js';
export { verifyCheckoutPsbt, verifyListingPsbt, type CheckoutIntent, type CheckoutQuoteLike, type ListingIntent } from './verify.js';
export { MarketClient, type WalletSigner, type Progress, type Operation } from './client.js';
export { tail, type FeedEvent, type TailOptions } from './tail.js';
