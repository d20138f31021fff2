/**
 * Transport behaviour of the Bitcoin Core adapter: timeouts, retries with
 * backoff on reads only, and the mapping of outages (network, 5xx, warm-up,
 * refused credentials) to UpstreamUnavailable, with credentials kept out of
 * every message and log line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BitcoinCoreBackend, RpcError } from '../../../src/chain/bitcoin-core/index.js';
import { UpstreamUnavailable } from '../../../src/chain/ports.js';
import { toApiError } from '../../../src/http/error-handler.js';
import { errorReply, fixture, rpcHandler, txs, type RpcTable } from './bitcoin-core-replay.js';
import { closedPort, startReplayServer, type ReplayReply, type ReplayServer } from './replay-server.js';

const SECRET = 's3cr3t-pa55';

/** Fails the first `failures` requests with `failure`, then serves `table`. */
function flaky(failures: number, failure: ReplayReply, table: RpcTable) {
  let n = 0;
  const ok = rpcHandler(table);
  return (req: Parameters<ReturnType<typeof rpcHandler>>[0]) => (n++ < failures ? failure : ok(req));
}

void describe('BitcoinCoreBackend transport', () => {
  let server: ReplayServer;
  const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const logger = { warn: (obj: Record<string, unknown>, msg: string) => void warnings.push({ obj, msg }) };
  const backend = (extra: Partial<ConstructorParameters<typeof BitcoinCoreBackend>[0]> = {}) =>
    new BitcoinCoreBackend({ url: `http://market:${SECRET}@127.0.0.1:${server.port}`, retry: { retries: 3, backoffMs: 5 }, logger, ...extra });
  const tipTable: RpcTable = { getblockchaininfo: () => fixture('getblockchaininfo') };

  before(async () => {
    server = await startReplayServer(rpcHandler(tipTable));
  });
  after(() => server.close());

  void it('retries a read after HTTP 502 from a proxy and succeeds', async () => {
    server.setHandler(flaky(2, { status: 502, body: '<html>bad gateway</html>', headers: { 'content-type': 'text/html' } }, tipTable));
    const n = server.requests.length;
    assert.equal((await backend().getTip()).height, 870000);
    assert.equal(server.requests.length - n, 3);
  });

  void it('retries a read while the node warms up (-28), then succeeds', async () => {
    let n = 0;
    server.setHandler(rpcHandler({ getblockchaininfo: () => (n++ < 1 ? errorReply('warmup') : fixture('getblockchaininfo')) }));
    assert.equal((await backend().getTip()).height, 870000);
    assert.equal(n, 2);
  });

  void it('gives up after the retries: UpstreamUnavailable 503 for warm-up', async () => {
    server.setHandler(rpcHandler({ getblockchaininfo: () => errorReply('warmup') }));
    const n = server.requests.length;
    await assert.rejects(backend().getTip(), (e: unknown) => {
      assert.ok(e instanceof UpstreamUnavailable);
      assert.equal(e.backend, 'bitcoin');
      assert.equal(e.status, 503);
      return true;
    });
    assert.equal(server.requests.length - n, 4, 'first attempt + 3 retries');
  });

  void it('a read that times out is retried, then fails as UpstreamUnavailable 502', async () => {
    server.setHandler(() => ({ delayMs: 300, body: { result: null, error: null, id: 1 } }));
    const n = server.requests.length;
    const started = Date.now();
    await assert.rejects(backend({ timeoutMs: 60, retry: { retries: 1, backoffMs: 1 } }).getTip(), (e: unknown) => {
      assert.ok(e instanceof UpstreamUnavailable);
      assert.equal(e.status, 502);
      assert.match(e.message, /timed out after 60 ms/);
      return true;
    });
    assert.equal(server.requests.length - n, 2);
    assert.ok(Date.now() - started < 290 * 2, 'the timeout, not the slow reply, ended each attempt');
  });

  void it('never retries sendrawtransaction: one request on 502, one on a timeout', async () => {
    server.setHandler(() => ({ status: 502, body: 'bad gateway' }));
    let n = server.requests.length;
    await assert.rejects(backend().broadcast(txs.tx_a.hex), UpstreamUnavailable);
    assert.equal(server.requests.length - n, 1);

    server.setHandler(() => ({ delayMs: 1_500, body: { result: txs.tx_a.txid, error: null, id: 1 } }));
    n = server.requests.length;
    await assert.rejects(backend({ broadcastTimeoutMs: 250 }).broadcast(txs.tx_a.hex), (e: unknown) => {
      assert.ok(e instanceof UpstreamUnavailable);
      assert.match(e.message, /sendrawtransaction: timed out/);
      return true;
    });
    // On a loaded machine the timed-out request may reach the server after the client gave up:
    // wait for it (so it is not counted by the next test), then for any retry that would follow.
    for (let i = 0; i < 40 && server.requests.length - n < 1; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(server.requests.length - n, 1);
  });

  void it('never retries submitpackage', async () => {
    server.setHandler(() => ({ status: 500, body: 'internal' }));
    const n = server.requests.length;
    await assert.rejects(backend().submitPackage([txs.tx_a.hex, txs.tx_b.hex]), UpstreamUnavailable);
    assert.equal(server.requests.length - n, 1);
  });

  void it('HTTP 503 (work queue full) → UpstreamUnavailable 503, renderable as upstream_unavailable', async () => {
    server.setHandler(() => ({ status: 503, body: 'Work queue depth exceeded', headers: { 'content-type': 'text/plain' } }));
    const err = await backend({ retry: { retries: 0 } }).getTip().catch((e: unknown) => e);
    assert.ok(err instanceof UpstreamUnavailable);
    assert.equal(err.status, 503);
    // The renderer production uses for every route (http/error-handler.ts).
    const api = toApiError(err, {} as Parameters<typeof toApiError>[1]);
    assert.equal(api.code, 'upstream_unavailable');
    assert.equal(api.status, 503);
    assert.equal(api.extras.retryable, true);
  });

  void it('refused credentials (401) are not retried', async () => {
    server.setHandler(() => ({ status: 401, body: '', headers: { 'www-authenticate': 'Basic realm="jsonrpc"' } }));
    const n = server.requests.length;
    await assert.rejects(backend().getTip(), (e: unknown) => e instanceof UpstreamUnavailable && /credentials/.test(e.message));
    assert.equal(server.requests.length - n, 1);
  });

  void it('a refused connection → UpstreamUnavailable 502 after retries', async () => {
    const port = await closedPort();
    const btc = new BitcoinCoreBackend({ url: `http://market:${SECRET}@127.0.0.1:${port}`, retry: { retries: 2, backoffMs: 1 }, logger });
    await assert.rejects(btc.getTip(), (e: unknown) => {
      assert.ok(e instanceof UpstreamUnavailable);
      assert.equal(e.status, 502);
      assert.match(e.message, /connection failed \(ECONNREFUSED\)/);
      return true;
    });
  });

  void it('an unknown method (HTTP 404 with -32601) is an RpcError, not an outage', async () => {
    server.setHandler(rpcHandler({}));
    await assert.rejects(backend().getTip(), (e: unknown) => e instanceof RpcError && e.code === -32601);
  });

  void it('credentials never appear in errors or log lines', () => {
    assert.ok(warnings.length > 0, 'retries were logged');
    for (const w of warnings) {
      const line = JSON.stringify(w);
      assert.ok(!line.includes(SECRET), line);
      assert.ok(!line.includes('market:'), line);
      assert.equal(w.obj.backend, 'bitcoin');
    }
  });
});
