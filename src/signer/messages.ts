/**
 * The texts the market signer verifies and signs for a collection-offer soft cancel. The bidder's
 * message is the specification's, unchanged: a fixed prefix and the parent txid (it names the
 * funding, not one alternative; the alternative is named by the authenticated request, see
 * service.ts). The receipt the signer signs names the alternative it refuses from then on.
 */
export const CANCEL_MESSAGE_PREFIX = 'counterparty-marketplace policy-offer cancel';
export const cancelMessage = (parentTxid: string) => `${CANCEL_MESSAGE_PREFIX}\n${parentTxid}`;

const RECEIPT_PREFIX = 'counterparty-marketplace policy-offer cancel receipt';
/** The receipt of one cancelled alternative: parent, offer id, the signer's clock at its first recorded cancel. */
export const alternativeReceiptMessage = (parentTxid: string, offerId: string, recordedAt: number) => `${RECEIPT_PREFIX}\n${parentTxid}\n${offerId}\n${recordedAt}`;
/** A whole-parent cancel recorded before cancels named an alternative (it still refuses every child of the parent). */
export const parentReceiptMessage = (parentTxid: string, recordedAt: number) => `${RECEIPT_PREFIX}\n${parentTxid}\n${recordedAt}`;
