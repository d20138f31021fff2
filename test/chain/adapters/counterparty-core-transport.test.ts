/**
 * Transport behaviour of the Counterparty Core adapter: readiness (HTTP 503 and
 * X-COUNTERPARTY-READY), retries on transient failures only, timeouts, Basic
 * auth from the URL, a base path prefix, and refusal of garbage replies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CounterpartyCoreBackend, CounterpartyRequestError } from '../../../src/chain/counterparty-core/index.js';
import { UpstreamUnavailable } from '../../../src/chain/ports.js';
import { coreHeaders, cpHandler, example } from './counterparty-replay.js';
import { closedPort, startReplayServer, type ReplayServer } from './replay-server.js';

const ADDR = 'bc1q0u2cv36t4nhfwnpnrck554ft0p6nj40qahwqwp';
const balances = () => ({ body: example('/v2/addresses/{address}/balances') });

void describe('CounterpartyCoreBackend transport', () => {
  let server: ReplayServer;
  const backend = (extra: Partial<ConstructorParameters<typeof CounterpartyCoreBackend>[0]> = {}) =>
    new CounterpartyCoreBackend({ url: server.url, retry: { retries: 2, backoffMs: 1 }, ...extra });

  before(async () => {
    server = await startReplayServer(cpHandler({ '/v2/addresses/{address}/balances': balances }));
  });
  after(() => server.close());

  void it('HTTP 503 "Counterparty not ready" → UpstreamUnavailable 503, not retried', async () => {
    server.setHandler(cpHandler({ '/v2/addresses/{address}/balances': () => ({ status: 503, body: { error: 'Counterparty not ready' } }) }, coreHeaders(850100, 850214, false)));
    const n = server.requests.length;
    await assert.rejects(backend().getAddressBalances(ADDR), (e: unknown) => {
      assert.ok(e instanceof UpstreamUnavailable);
      assert.equal(e.backend, 'counterparty');
      assert.equal(e.status, 503);
      assert.match(e.message, /Counterparty not ready/);
      return true;
    });
    assert.equal(server.requests.length - n, 1);
  });

  void it('X-COUNTERPARTY-READY: False on a 200 ledger read → UpstreamUnavailable 503', async () => {
    server.setHandler(cpHandler({ '/v2/addresses/{address}/balances': balances }, coreHeaders(850100, 850214, false)));
    await assert.rejects(backend().getAddressBalances(ADDR), (e: unknown) => e instanceof UpstreamUnavailable && e.status === 503);
  });

  void it('getStatus reports a not-ready node instead of throwing (200 with False, and 503)', async () => {
    const root = example<{ result: Record<string, unknown> }>('/v2/');
    root.result.server_ready = false;
    root.result.counterparty_height = 850100;
    server.setHandler(cpHandler({ '/v2/': () => ({ body: root }) }, coreHeaders(850100, 850214, false)));
    assert.deepEqual(await backend().getStatus(), { counterparty_height: 850100, bitcoin_height: 850214, ready: false });

    server.setHandler(cpHandler({ '/v2/': () => ({ status: 503, body: { error: 'Backend still not ready. Please try again later.' } }) }, coreHeaders('None', 'None', false)));
    assert.deepEqual(await backend().getStatus(), { counterparty_height: 0, bitcoin_height: 0, ready: false });
  });

  void it('retries HTTP 502 from a proxy, then succeeds', async () => {
    let n = 0;
    server.setHandler(
      cpHandler({ '/v2/addresses/{address}/balances': () => (n++ < 2 ? { status: 502, body: '<html>bad gateway</html>' } : balances()) }),
    );
    assert.equal((await backend().getAddressBalances(ADDR)).length, 5);
    assert.equal(n, 3);
  });

  void it('a read that times out is retried, then fails as UpstreamUnavailable 502', async () => {
    server.setHandler(cpHandler({ '/v2/addresses/{address}/balances': () => ({ ...balances(), delayMs: 300 }) }));
    const n = server.requests.length;
    await assert.rejects(backend({ timeoutMs: 50, retry: { retries: 1, backoffMs: 1 } }).getAddressBalances(ADDR), (e: unknown) => {
      assert.ok(e instanceof UpstreamUnavailable);
      assert.equal(e.status, 502);
      assert.match(e.message, /timed out after 50 ms/);
      return true;
    });
    assert.equal(server.requests.length - n, 2);
  });

  void it('a refused connection → UpstreamUnavailable 502', async () => {
    const cp = new CounterpartyCoreBackend({ url: `http://127.0.0.1:${await closedPort()}`, retry: { retries: 1, backoffMs: 1 } });
    await assert.rejects(cp.getAsset('XCP'), (e: unknown) => e instanceof UpstreamUnavailable && e.status === 502);
  });

  void it('a reply that is not JSON → UpstreamUnavailable 502', async () => {
    server.setHandler(() => ({ status: 200, body: '<html>captive portal</html>', headers: { 'content-type': 'text/html' } }));
    await assert.rejects(backend({ retry: { retries: 0 } }).getAsset('XCP'), (e: unknown) => e instanceof UpstreamUnavailable && e.status === 502);
  });

  void it('HTTP 400 (bad address) → CounterpartyRequestError carrying Core’s message', async () => {
    server.setHandler(cpHandler({ '/v2/addresses/{address}/balances': () => ({ status: 400, body: { error: 'Invalid address: nope' } }) }));
    await assert.rejects(backend().getAddressBalances('nope'), (e: unknown) => e instanceof CounterpartyRequestError && e.apiError === 'Invalid address: nope');
  });

  void it('credentials in the URL become Basic auth; a base path prefix is kept', async () => {
    server.setHandler(cpHandler({ '/proxy/cp/v2/assets/{asset}': () => ({ body: example('/v2/assets/{asset}') }) }));
    const cp = new CounterpartyCoreBackend({ url: `http://api:top%20secret@127.0.0.1:${server.port}/proxy/cp/` });
    assert.equal((await cp.getAsset('BURNER'))?.asset, 'BURNER');
    const req = server.requests.at(-1)!;
    assert.equal(req.path, '/proxy/cp/v2/assets/BURNER');
    assert.equal(req.headers.authorization, `Basic ${Buffer.from('api:top secret').toString('base64')}`);
  });
});
