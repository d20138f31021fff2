/**
 * What a checkout quote fixed of its transaction, read from the quote row and the listings'
 * seller halves rather than from the quote's PSBT (parsing it is a good part of a completion's
 * own work): buyerSigned's fast check (src/trade/signed.ts) holds the buyer's PSBT to it.
 */
import { decodeAddress } from '../../bitcoin/address.js';
import type { Network } from '../../bitcoin/networks.js';
import type { QuotedTransaction } from '../../trade/signed.js';
import type { ListingRow } from '../listings/index.js';
import type { SellerHalves } from './seller-half.js';
import type { QuoteRow } from './store.js';

/**
 * The quote's txid, fee and prevouts, inputs in quote order (buyer coin, the listings' units,
 * further buyer coins: trade/compose.ts). The unit prevouts are the halves' (the quote copied
 * them), the buyer coins pay the buyer address, and the one buyer coin's amount is what the fee
 * leaves (inputs less outputs is the quoted network fee). Undefined when the quote cannot be
 * read so (several buyer coins, whose amounts the row does not hold; a co-signed line; a half
 * that does not read): the buyer's PSBT is then compared with the quote's.
 */
export function quotedTransaction(q: QuoteRow, listings: ListingRow[], halves: SellerHalves, network: Network): QuotedTransaction | undefined {
  const funding = JSON.parse(q.funding) as string[];
  if (funding.length !== 1 || listings.some((l) => l.protocol_subtype === 'cosigned')) return undefined;
  const buyer = decodeAddress(q.buyer_address, network);
  if (!buyer.ok) return undefined;
  const units = listings.map((l) => halves.prevout(l));
  if (units.some((p) => !p)) return undefined;
  return { txid: q.expected_txid, fee: BigInt(q.network_fee_sats), prevouts: [{ script: buyer.script }, ...(units as { script: Uint8Array; amount: bigint }[])] };
}
