// Receive webhooks: a small HTTP receiver that checks each delivery's signature (Standard
// Webhooks) before trusting it. Registers itself for the signed-in address, then waits for one.
import http from 'node:http';
import { verifyWebhook } from '@counterparty-marketplace/client';
import { connect, print } from './connect.mjs';

const { market } = await connect();
let secret;
const got = new Promise((resolve) => {
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      try {
        const payload = await verifyWebhook(secret, req.headers, raw); // throws webhook_signature_invalid
        res.writeHead(200).end();
        server.close();
        resolve(payload);
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  server.listen(Number(process.env.WEBHOOK_PORT ?? 0), '127.0.0.1', async () => {
    const endpoint = await market.webhooks.register(`http://127.0.0.1:${server.address().port}/hook`);
    secret = endpoint.secret; // shown once: keep it
    console.error('ready', endpoint.id); // now events of this address (a sale, a delisting, an offer) arrive
  });
});
const payload = await got;
print({ type: payload.type, address: payload.address });
