/**
 * Realistic examples for the main routes, keyed `METHOD /openapi/path`, added to the document by
 * openapi-components.ts. Values are the devnet's (regtest): the demo wallet alice and its market.
 * test/http/openapi.test.ts sends every request example through the app and asserts it passes
 * validation, so an example cannot drift from its schema.
 */
const ALICE = 'bcrt1qm6tj7amzeutau3g830lxnz7f8qzv5vq049zlk5';
const TXID = '4c6e3a1f2b9d8e7a6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19081726354f6e7d8c';
/** A PSBT header and an empty global map: the shape only (a real one comes from the template). */
const PSBT = '70736274ff01005e02000000014c6e3a1f2b9d8e7a6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19081726354f6e7d8c0000000000fdffffff0150c3000000000000160014deb72f7762cf17de450f8bfe698bc938043a301f00000000000000';

export interface OperationExample {
  /** The JSON request body. */
  body?: unknown;
  /** Query parameters, as a client sends them. */
  query?: Record<string, string>;
  /** The 200 result, shortened where a list repeats. */
  response?: unknown;
}

export const EXAMPLES: Record<string, OperationExample> = {
  'POST /v1/auth/challenge': {
    body: { address: ALICE },
    response: {
      result: {
        challenge_id: 'Vq1yR0ZpQm9zZ2xkY2hhbA',
        address: ALICE,
        message: `localhost:8080 wants you to sign in with your Bitcoin account:\n${ALICE}\n\nSign in to the Counterparty collectibles marketplace. This signature does not authorize any spending.\n\nURI: http://localhost:8080\nNonce: 9f2c4e1a7b3d5f6e8a0c2b4d6e8f0a1c\nIssued At: 2026-11-23T21:00:00Z\nExpiration Time: 2026-11-23T21:10:00Z`,
        issued_at: 1795467600,
        expires_at: 1795468200,
      },
    },
  },
  'POST /v1/auth/verify': {
    body: { address: ALICE, issued_at: 1795467600, challenge_id: 'Vq1yR0ZpQm9zZ2xkY2hhbA', signature: 'AkcwRAIgZ3Rvc2lnbmF0dXJlX2V4YW1wbGVfb25seV9ub3RfdmFsaWQ=' },
  },
  'GET /v1/collections': { query: { limit: '20' } },
  'GET /v1/fills': { query: { collection: 'rare-pepes', status: 'confirmed', limit: '20' } },
  'GET /v1/events': { query: { kind: 'sales', limit: '20' } },
  'POST /v1/listing-preflights': {
    body: { seller: ALICE, asset: 'PEPECASH', quantity_raw: '1', mode: 'attach', price_sats: 250000, fee_rate: 2, idempotency_key: 'list-pepecash-2026-11-23' },
  },
  'POST /v1/listing-preflights/{id}/attach-and-list': {
    // expires_at here is the listing's market expiry (the seller's choice, up to 365 days), not the draft's 15-minute deadline.
    body: { attach_psbt_hex: PSBT, listing_psbt_hex: PSBT, expires_at: 1798059600 },
  },
  'POST /v1/listing-preflights/{id}/listing': {
    body: { psbt_hex: PSBT, expires_at: 1798059600 },
  },
  'POST /v1/checkout/quotes': {
    body: { lines: [{ listing_id: 'lst_01jd3k7m2n4p6q8r0s2t4v6w8y' }, { asset: 'PEPECASH', quantity: 2 }], delivery_mode: 'detached', fee_rate: 3 },
  },
  'POST /v1/checkout/quotes/{id}/complete': { body: { psbt_hex: PSBT } },
  'POST /v1/transactions/status': { body: { txids: [TXID] } },
  'POST /v1/policy-offers/preflight': {
    body: {
      targets: [
        { scope: 'collection', collection: 'rare-pepes', price_sats: 40_000 },
        { scope: 'collection', collection: 'rare-pepes', max_supply_units: 300, issued_year: 2016, price_sats: 55_000 },
      ],
      bidder_pubkey: 'c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5',
      expires_at: 1798059600,
    },
  },
  'POST /v1/policy-offers': {
    body: { funding_set_id: 'pf_3f1c9a7e5b2d4c6e8a0b1c2d', parent_psbt_hex: PSBT, presignatures: [{ index: 0, signature_hex: `${'ab'.repeat(64)}83` }, { index: 1, signature_hex: `${'cd'.repeat(64)}83` }] },
  },
  'POST /v1/policy-accepts/preflight': { body: { parent_txid: TXID, asset_txid: TXID, asset_vout: 0, seller_min_net_sats: 50_000 } },
  'POST /v1/policy-accepts': { body: { accept_id: 'pa_7e5b2d4c6e8a0b1c2d3f1c9a', psbt_hex: PSBT } },
};
