/**
 * The signer as its own process (`npm run signer`): a small HTTP interface on loopback, every
 * request authenticated with the shared secret (`Authorization: Bearer <SIGNER_SECRET>`,
 * compared in constant time). Its keys and decisions live under its own directory.
 */
import crypto from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { KeyRefused } from './keys.js';
import type { MarketSigner } from './service.js';

const TXID = /^[0-9a-f]{64}$/;
/** An alternative's id as the market makes them (po_ and 24 hex), so a record key is never free text. */
const isOfferId = (x: unknown): x is string => typeof x === 'string' && /^po_[0-9a-f]{24}$/.test(x);

function authorized(header: string | undefined, secret: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const want = Buffer.from(secret);
  return given.length === want.length && crypto.timingSafeEqual(given, want);
}

export function signerApp(signer: MarketSigner, secret: string): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 256 * 1024 });
  app.addHook('onRequest', async (req, reply) => {
    if (!authorized(req.headers.authorization, secret)) await reply.code(401).send({ error: 'unauthenticated', code: 'unauthenticated' });
  });
  app.setErrorHandler(async (err, _req, reply) => {
    if (err instanceof KeyRefused) return reply.code(422).send({ error: err.message, code: 'policy_offer_refused', refusal_code: err.code, ...err.extras });
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status < 500) return reply.code(status).send({ error: err instanceof Error ? err.message : 'bad request', code: 'invalid_request' });
    return reply.code(500).send({ error: 'internal error', code: 'internal_error' });
  });
  app.get('/signer/keys', async () => ({ result: signer.info() }));
  app.post<{ Body: Record<string, unknown> }>('/signer/cosign', async (req) => {
    const b = req.body ?? {};
    if (typeof b.parent_txid !== 'string' || !TXID.test(b.parent_txid) || !isOfferId(b.offer_id) || typeof b.child_psbt_hex !== 'string' || typeof b.leaf_script_hex !== 'string' || !Number.isInteger(b.input_index) || !Number.isInteger(b.key_version)) {
      throw new KeyRefused('bad_request', 'cosign needs parent_txid, offer_id, child_psbt_hex, input_index, leaf_script_hex, key_version');
    }
    return { result: signer.cosign(b as never) };
  });
  app.post<{ Body: Record<string, unknown> }>('/signer/cancel', async (req) => {
    const b = req.body ?? {};
    if (typeof b.parent_txid !== 'string' || !TXID.test(b.parent_txid) || !isOfferId(b.offer_id) || typeof b.address !== 'string' || typeof b.signature !== 'string') {
      throw new KeyRefused('bad_request', 'cancel needs parent_txid, offer_id, address, signature');
    }
    return { result: signer.cancel({ parent_txid: b.parent_txid, offer_id: b.offer_id, address: b.address, signature: b.signature }) };
  });
  app.post<{ Body: Record<string, unknown> }>('/signer/listings/cosign', async (req) => {
    const b = req.body ?? {};
    if (typeof b.listing_id !== 'string' || typeof b.outpoint !== 'string' || typeof b.tx_psbt_hex !== 'string' || typeof b.leaf_script_hex !== 'string' || !Number.isInteger(b.input_index) || !Number.isInteger(b.key_version)) {
      throw new KeyRefused('bad_request', 'listing cosign needs listing_id, outpoint, tx_psbt_hex, input_index, leaf_script_hex, key_version');
    }
    return { result: signer.cosignListing(b as never) };
  });
  app.post<{ Body: { listing_id?: unknown; outpoint?: unknown } }>('/signer/listings/revoke', async (req) => {
    const { listing_id, outpoint } = req.body ?? {};
    if (typeof listing_id !== 'string' || typeof outpoint !== 'string') throw new KeyRefused('bad_request', 'listing revoke needs listing_id and outpoint');
    return { result: signer.revokeListing(listing_id, outpoint) };
  });
  return app;
}
