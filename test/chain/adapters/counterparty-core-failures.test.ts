/**
 * The Counterparty Core adapter on Core's failure replies (test/fixtures/counterparty-core/
 * error-replies.json: recorded in Core's regtest apicache, or Core's own message text): an
 * Electrs failure is an upstream failure the API renders 503 `upstream_unavailable` with
 * `retry_after_seconds` (before: a CounterpartyRequestError, rendered 500 internal_error), a
 * failed Electrs is retried and an unconfigured one is not, the operator gets one log line naming
 * what to configure; not-ready and backend-down replies stay upstream failures on every route the
 * adapter calls; XCP's asset row (null asset_id) and a subasset's longname come out right.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CounterpartyCoreBackend, CounterpartyRequestError, CounterpartyUtxoSource, ElectrsUnavailable } from '../../../src/chain/counterparty-core/index.js';
import { UpstreamUnavailable } from '../../../src/chain/ports.js';
import { toApiError } from '../../../src/http/error-handler.js';
import { COUNTERPARTY_ERROR_REPLIES } from '../../helpers/fixtures.js';
import { coreHeaders, cpHandler, example, type CpRoute } from './counterparty-replay.js';
import { startReplayServer, type ReplayServer } from './replay-server.js';

type Reply = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };
const replies = JSON.parse(fs.readFileSync(COUNTERPARTY_ERROR_REPLIES, 'utf8')) as Record<string, Reply>;
const reply = (name: string): ReturnType<CpRoute> => ({ status: replies[name]!.status, body: structuredClone(replies[name]!.body), headers: replies[name]!.headers });

const ADDR = 'bc1q0u2cv36t4nhfwnpnrck554ft0p6nj40qahwqwp';
const UTXO_ROUTE = '/v2/bitcoin/addresses/{address}/utxos';

/** Every port method the market calls, each on the route it reads. */
const CALLS: Array<[string, string, (cp: CounterpartyCoreBackend) => Promise<unknown>]> = [
  ['getAddressBalances', '/v2/addresses/{address}/balances', (cp) => cp.getAddressBalances(ADDR)],
  ['getUtxoBalances', '/v2/utxos/{utxo}/balances', (cp) => cp.getUtxoBalances(`${'b2'.repeat(32)}:0`)],
  ['getAssetBalances', '/v2/assets/{asset}/balances', (cp) => cp.getAssetBalances('BURNER')],
  ['getUtxosWithBalances', '/v2/utxos/withbalances', (cp) => cp.getUtxosWithBalances([`${'b2'.repeat(32)}:0`])],
  ['getAsset', '/v2/assets/{asset}', (cp) => cp.getAsset('BURNER')],
  ['estimateAttachXcpFee', '/v2/compose/attach/estimatexcpfees', (cp) => cp.estimateAttachXcpFee()],
  ['getBlockEvents', '/v2/blocks/{block_index}/events', (cp) => cp.getBlockEvents(325)],
  ['getAddressUtxos', UTXO_ROUTE, (cp) => cp.getAddressUtxos(ADDR)],
];

function logSink() {
  const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  return { lines, warn: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) };
}

void describe('CounterpartyCoreBackend on Core’s failure replies', () => {
  let server: ReplayServer;
  before(async () => {
    server = await startReplayServer(cpHandler({}));
  });
  after(() => server.close());
  const backend = (logger = logSink(), retries = 2) => new CounterpartyCoreBackend({ url: server.url, retry: { retries, backoffMs: 1 }, logger });

  void it('Electrs not configured: 503 upstream failure, not retried, one log line naming --electrs-url and UTXO_SOURCE', async () => {
    server.setHandler(cpHandler({ [UTXO_ROUTE]: () => reply('electrs_not_configured') }));
    const log = logSink();
    const cp = backend(log);
    const n = server.requests.length;
    const err = await cp.getAddressUtxos(ADDR).catch((e: unknown) => e);
    assert.ok(err instanceof ElectrsUnavailable && err instanceof UpstreamUnavailable, String(err));
    assert.deepEqual([err.status, err.backend, err.failure, err.detail.cause], [503, 'counterparty', 'not_configured', 'electrs']);
    assert.equal(server.requests.length - n, 1, 'an unconfigured Electrs does not come back within retries');
    await cp.getAddressUtxos(ADDR).catch(() => undefined);
    const electrsLines = log.lines.filter((l) => l.obj.electrs === 'not_configured');
    assert.equal(electrsLines.length, 1, 'one line a minute, not one a request');
    assert.match(electrsLines[0]!.msg, /--electrs-url/);
    assert.match(electrsLines[0]!.msg, /UTXO_SOURCE=bitcoin-core/);

    // The API renders it as the spec's upstream failure, never a 500.
    const api = toApiError(err, {} as never);
    assert.deepEqual([api.status, api.code], [503, 'upstream_unavailable']);
    const body = api.toBody() as Record<string, unknown>;
    assert.equal(body.retryable, true);
    assert.equal(body.retry_after_seconds, 60);
    assert.equal(api.headers['retry-after'], '60');
  });

  void it('All Electrs backends failed (recorded reply): retried, then 503; a recovery within the retries succeeds', async () => {
    server.setHandler(cpHandler({ [UTXO_ROUTE]: () => reply('electrs_backends_failed') }));
    const n = server.requests.length;
    const err = await backend().getAddressUtxos(ADDR).catch((e: unknown) => e);
    assert.ok(err instanceof ElectrsUnavailable);
    assert.deepEqual([err.status, err.failure, err.detail.retryAfterSeconds], [503, 'backends_failed', 15]);
    assert.equal(server.requests.length - n, 3, 'first attempt and two retries');
    assert.match(toApiError(err, {} as never).message, /Electrs/);

    let calls = 0;
    server.setHandler(cpHandler({ [UTXO_ROUTE]: () => (calls++ === 0 ? reply('electrs_backends_failed') : reply('address_utxos')) }, coreHeaders(850214, 850214, true)));
    assert.deepEqual((await backend().getAddressUtxos(ADDR)).map((u) => [u.vout, u.confirmations]), [[0, 15], [3, 0]]);
  });

  void it('before the fix an Electrs 400 was our request’s fault: now only a real bad request is (Invalid address)', async () => {
    server.setHandler(cpHandler({ [UTXO_ROUTE]: () => reply('invalid_address') }));
    const err = await backend().getAddressUtxos('nope').catch((e: unknown) => e);
    assert.ok(err instanceof CounterpartyRequestError && !(err instanceof UpstreamUnavailable));
    assert.equal(err.apiError, 'Invalid address: nope');
  });

  void it('the Counterparty UTXO source probes through the same route: a node without Electrs is not a ready source', async () => {
    server.setHandler(cpHandler({ [UTXO_ROUTE]: () => reply('electrs_not_configured') }));
    const source = new CounterpartyUtxoSource(backend(), ADDR);
    await assert.rejects(source.probe(), (e: unknown) => e instanceof ElectrsUnavailable);
    server.setHandler(cpHandler({ [UTXO_ROUTE]: () => reply('address_utxos') }));
    assert.match(await source.probe(), /Electrs/);
  });

  for (const [name, route, call] of CALLS) {
    void it(`${name}: Counterparty not ready (503) and backend down (503, heights None) are upstream failures, not retried`, async () => {
      for (const failure of ['counterparty_not_ready', 'backend_not_ready']) {
        server.setHandler(cpHandler({ [route]: () => reply(failure) }, replies[failure]!.headers));
        const n = server.requests.length;
        const err = await call(backend()).catch((e: unknown) => e);
        assert.ok(err instanceof UpstreamUnavailable, `${name} on ${failure}: ${String(err)}`);
        assert.equal(err.status, 503);
        assert.equal(server.requests.length - n, 1, 'a node catching up is measured in blocks: not hammered');
        assert.equal(toApiError(err, {} as never).code, 'upstream_unavailable');
      }
    });
  }

  void it('getStatus and describeNode read a not-ready and a backend-down /v2/ without throwing', async () => {
    server.setHandler(cpHandler({ '/v2/': () => reply('backend_not_ready') }, replies.backend_not_ready!.headers));
    const cp = backend();
    assert.deepEqual(await cp.getStatus(), { counterparty_height: 0, bitcoin_height: 0, ready: false });
    const root = example<{ result: Record<string, unknown> }>('/v2/');
    server.setHandler(cpHandler({ '/v2/': () => ({ body: { result: { ...root.result, server_ready: false, counterparty_height: 850100 } } }) }, coreHeaders(850100, 850214, false)));
    const d = await cp.describeNode();
    assert.deepEqual([d.version, d.network, d.ready], ['Counterparty Core 11.2.0', 'mainnet', false]);
    // Catching up is a state, not a requirement missed: a note (the start-up check warns).
    assert.match(d.notes.join(), /catching up: parsed 850100 of 850214/);
    assert.deepEqual(d.problems, []);
  });

  void it('XCP: Core’s row has a null asset_id; the port says "1" (never the text "null"), first issuance 278319', async () => {
    server.setHandler(cpHandler({ '/v2/assets/{asset}': () => reply('xcp_asset') }));
    const xcp = await backend().getAsset('XCP');
    assert.equal(xcp!.asset_id, '1');
    assert.deepEqual([xcp!.issuer, xcp!.owner, xcp!.divisible, xcp!.locked, xcp!.first_issuance_block_index], [null, null, true, true, 278319]);
  });

  void it('a balance row without asset_info (a proxy, an older release): the numeric asset’s longname is read from asset info, once', async () => {
    const [row] = example<{ result: Array<Record<string, unknown>> }>('/v2/addresses/{address}/balances').result;
    const { asset_info: info, quantity_normalized: _q, ...bare } = row!;
    let assetReads = 0;
    server.setHandler(
      cpHandler({
        '/v2/addresses/{address}/balances': () => ({ body: { result: [bare], next_cursor: null, result_count: 1 } }),
        '/v2/assets/{asset}': (_r, p) => {
          assetReads++;
          return { body: { result: { ...example<{ result: Record<string, unknown> }>('/v2/assets/{asset}').result, asset: p.asset, asset_longname: (info as Record<string, unknown>).asset_longname } } };
        },
      }),
    );
    const cp = backend();
    for (let i = 0; i < 2; i++) assert.equal((await cp.getAddressBalances(ADDR))[0]!.asset_longname, 'A95428959745315388.SUBNUMERIC');
    assert.equal(assetReads, 1);
  });
});
