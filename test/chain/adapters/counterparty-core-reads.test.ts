/**
 * Contract of the Counterparty Core adapter against the example replies of
 * Core's own OpenAPI description, served over real HTTP: parsed values, cursor
 * paging to the end, quantities above 2^53, event filters and UTXO confirmations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CounterpartyCoreBackend } from '../../../src/chain/counterparty-core/index.js';
import { UpstreamUnavailable } from '../../../src/chain/ports.js';
import { coreHeaders, cpHandler, example, pageOf, type CpRoute } from './counterparty-replay.js';
import { startReplayServer, type ReplayServer } from './replay-server.js';

const ADDR = 'bc1q0u2cv36t4nhfwnpnrck554ft0p6nj40qahwqwp';
const UTXO = '00000000000000000000000000000000000000000000000000000000000000b2:0';
const BIG = '12345678901234567890'; // > 2^64 / 2: JSON.parse would print 12345678901234567000

type Rows = Array<Record<string, unknown>>;
const rowsOf = (route: string) => example<{ result: Rows }>(route).result;

/** The example's body with one quantity literal swapped for a 20-digit one, as raw JSON text. */
function withBigQuantity(route: string, from: number | string): string {
  const text = JSON.stringify(example(route));
  const literal = new RegExp(`:${from}(?=[,}\\]])`);
  assert.match(text, literal, `example of ${route} has ${from}`);
  return text.replace(literal, `:${BIG}`);
}

void describe('CounterpartyCoreBackend reads', () => {
  let server: ReplayServer;
  let cp: CounterpartyCoreBackend;
  const routes: Record<string, CpRoute> = {
    '/v2/': () => ({ body: example('/v2/') }),
    '/v2/addresses/{address}/balances': () => ({ body: example('/v2/addresses/{address}/balances') }),
    '/v2/utxos/{utxo}/balances': () => ({ body: example('/v2/utxos/{utxo}/balances') }),
    '/v2/assets/{asset}': (_r, p) => (p.asset === 'BURNER' ? { body: example('/v2/assets/{asset}') } : { status: 404, body: { error: 'Not found' } }),
    '/v2/compose/attach/estimatexcpfees': () => ({ body: example('/v2/compose/attach/estimatexcpfees') }),
  };

  before(async () => {
    server = await startReplayServer(cpHandler(routes));
    cp = new CounterpartyCoreBackend({ url: server.url, retry: { retries: 0 } });
  });
  after(() => server.close());
  const serve = (extra: Record<string, CpRoute>, headers?: Record<string, string>) => server.setHandler(cpHandler({ ...routes, ...extra }, headers));

  void it('getStatus reads /v2/ and the headers', async () => {
    assert.deepEqual(await cp.getStatus(), { counterparty_height: 850214, bitcoin_height: 850214, ready: true });
    assert.equal(server.requests.at(-1)!.path, '/v2/');
  });

  void it('getAddressBalances maps every row of the example', async () => {
    const rows = rowsOf('/v2/addresses/{address}/balances');
    const balances = await cp.getAddressBalances(ADDR);
    assert.equal(server.requests.at(-1)!.path, `/v2/addresses/${ADDR}/balances`);
    assert.deepEqual(
      balances,
      // Core leaves a subasset's longname null on the row itself; the verbose row's asset_info has it.
      rows.map((r) => ({ asset: r.asset, asset_longname: (r.asset_info as { asset_longname: string | null }).asset_longname, quantity_raw: String(r.quantity), utxo: null, address: ADDR })),
    );
    assert.equal(balances[0]!.quantity_raw, '100000000000');
    assert.deepEqual([rows[0]!.asset_longname, balances[0]!.asset_longname], [null, 'A95428959745315388.SUBNUMERIC']);
    assert.equal(server.requests.at(-1)!.query.get('verbose'), 'true');
  });

  void it('getAddressBalances follows next_cursor to the end (inclusive cursor, limit per page)', async () => {
    const rows: Rows = rowsOf('/v2/addresses/{address}/balances').map((r, i) => ({ ...r, rowid: 100 - i }));
    serve({ '/v2/addresses/{address}/balances': (req) => pageOf(rows, 'rowid', req) });
    const paged = new CounterpartyCoreBackend({ url: server.url, pageSize: 2, retry: { retries: 0 } });
    const n = server.requests.length;
    const balances = await paged.getAddressBalances(ADDR);
    assert.deepEqual(balances.map((b) => b.asset), rows.map((r) => r.asset));
    const reqs = server.requests.slice(n);
    assert.equal(reqs.length, 3);
    assert.deepEqual(reqs.map((r) => [r.query.get('limit'), r.query.get('cursor')]), [['2', null], ['2', '98'], ['2', '96']]);
  });

  void it('quantities above 2^53 stay exact (balances, asset supply, attach fee, event params)', async () => {
    serve({
      '/v2/addresses/{address}/balances': () => ({ body: withBigQuantity('/v2/addresses/{address}/balances', 100000000000) }),
      '/v2/assets/{asset}': () => ({ body: withBigQuantity('/v2/assets/{asset}', 100000000) }),
      '/v2/compose/attach/estimatexcpfees': () => ({ body: `{"result": ${BIG}}` }),
      '/v2/blocks/{block_index}/events': () => ({ body: withBigQuantity('/v2/blocks/{block_index}/events/{event}', 2000000000) }),
    });
    assert.equal((await cp.getAddressBalances(ADDR))[0]!.quantity_raw, BIG);
    assert.equal((await cp.getAsset('BURNER'))!.supply_raw, BIG);
    assert.equal(await cp.estimateAttachXcpFee(), BIG);
    const events = await cp.getBlockEvents(325);
    assert.equal(events.find((e) => e.event_index === 1385)!.params.quantity, BIG);
    serve({});
  });

  void it('getUtxoBalances: the owner is utxo_address', async () => {
    const [row] = rowsOf('/v2/utxos/{utxo}/balances');
    assert.deepEqual(await cp.getUtxoBalances(UTXO), [
      { asset: 'UTXOASSET', asset_longname: null, quantity_raw: String(row!.quantity), utxo: UTXO, address: row!.utxo_address },
    ]);
    assert.equal(server.requests.at(-1)!.path, `/v2/utxos/${encodeURIComponent(UTXO)}/balances`);
  });

  void it('getAssetBalances maps the example (address rows), asks type=all and follows the cursor', async () => {
    const rows = rowsOf('/v2/assets/{asset}/balances');
    serve({ '/v2/assets/{asset}/balances': (_r, p) => (p.asset === 'BURNER' ? { body: example('/v2/assets/{asset}/balances') } : { body: { result: [], next_cursor: null, result_count: 0 } }) });
    assert.deepEqual(
      await cp.getAssetBalances('BURNER'),
      rows.map((r) => ({ asset: 'BURNER', asset_longname: null, quantity_raw: String(r.quantity), utxo: null, address: r.address })),
    );
    assert.equal(server.requests.at(-1)!.path, '/v2/assets/BURNER/balances');
    assert.equal(server.requests.at(-1)!.query.get('type'), 'all');
    assert.deepEqual(await cp.getAssetBalances('NOSUCHCARD'), []);

    // A UTXO row is owned by its utxo_address; zero rows are dropped; every page is read.
    const [first] = rows;
    const paged: Rows = [
      { ...first, rowid: 3 },
      { ...first, rowid: 2, address: null, utxo: UTXO, utxo_address: ADDR, quantity: 1 },
      { ...first, rowid: 1, quantity: 0 },
    ];
    serve({ '/v2/assets/{asset}/balances': (req) => pageOf(paged, 'rowid', req) });
    const small = new CounterpartyCoreBackend({ url: server.url, pageSize: 1, retry: { retries: 0 } });
    assert.deepEqual(await small.getAssetBalances('BURNER'), [
      { asset: 'BURNER', asset_longname: null, quantity_raw: String(first!.quantity), utxo: null, address: first!.address },
      { asset: 'BURNER', asset_longname: null, quantity_raw: '1', utxo: UTXO, address: ADDR },
    ]);
    serve({});
  });

  void it('getAssetBalances refuses a node that is not caught up (503)', async () => {
    serve({ '/v2/assets/{asset}/balances': () => ({ body: example('/v2/assets/{asset}/balances') }) }, coreHeaders(325, 327, false));
    await assert.rejects(cp.getAssetBalances('BURNER'), (e: unknown) => e instanceof UpstreamUnavailable && e.status === 503);
    serve({});
  });

  void it('getUtxosWithBalances: comma-separated utxos, chunked, true entries only', async () => {
    const exampleReply = example<{ result: Record<string, boolean> }>('/v2/utxos/withbalances');
    assert.deepEqual(Object.values(exampleReply.result), [false, false]);
    const holding = new Set(['aa:1', 'cc:0']);
    serve({
      '/v2/utxos/withbalances': (req) => ({
        body: { result: Object.fromEntries(req.query.get('utxos')!.split(',').map((u) => [u, holding.has(u)])) },
      }),
    });
    const chunked = new CounterpartyCoreBackend({ url: server.url, utxoBatchSize: 2, retry: { retries: 0 } });
    const n = server.requests.length;
    assert.deepEqual([...(await chunked.getUtxosWithBalances(['aa:1', 'bb:0', 'cc:0', 'aa:1']))].sort(), ['aa:1', 'cc:0']);
    assert.deepEqual(server.requests.slice(n).map((r) => r.query.get('utxos')), ['aa:1,bb:0', 'cc:0']);
    assert.equal((await chunked.getUtxosWithBalances([])).size, 0);
    assert.equal(server.requests.length - n, 2, 'no request for an empty list');
    serve({});
  });

  void it('getAsset maps the example; an unknown asset (404) is null', async () => {
    assert.deepEqual(await cp.getAsset('BURNER'), {
      asset: 'BURNER',
      asset_id: '21328597',
      asset_longname: null,
      divisible: true,
      locked: true,
      supply_raw: '100000000',
      issuer: 'bc1qzcjqss4qygu4nj76lh3ak6nmuzetc7qktptmnc',
      owner: 'bc1qzcjqss4qygu4nj76lh3ak6nmuzetc7qktptmnc',
      description: "let's burn it",
      first_issuance_block_index: 222,
    });
    assert.equal(await cp.getAsset('NOSUCHASSET'), null);
  });

  void it('getAsset after a transfer of ownership: owner is the current holder, issuer the first; a release without owner maps it to null', async () => {
    const NEW_OWNER = 'bc1q0u2cv36t4nhfwnpnrck554ft0p6nj40qahwqwp';
    const base = example<{ result: Record<string, unknown> }>('/v2/assets/{asset}');
    const { owner: _dropped, ...noOwner } = base.result;
    serve({
      '/v2/assets/{asset}': (_r, p) => ({ body: { result: p.asset === 'BURNER' ? { ...base.result, owner: NEW_OWNER } : { ...noOwner, asset: p.asset } } }),
    });
    const moved = await cp.getAsset('BURNER');
    assert.deepEqual([moved!.issuer, moved!.owner], [base.result.issuer, NEW_OWNER]);
    const older = await cp.getAsset('OLDCORE');
    assert.deepEqual([older!.issuer, older!.owner], [base.result.issuer, null]);
    serve({});
  });

  void it('estimateAttachXcpFee: the example (0) as a decimal string', async () => {
    assert.equal(await cp.estimateAttachXcpFee(), '0');
  });

  void it('getBlockEvents: every page, ascending, event_name sent and applied', async () => {
    // Page 1 is the route's example (next_cursor 1386); page 2 is the CREDIT rows at or below 1386.
    const page2 = example<{ result: Rows }>('/v2/blocks/{block_index}/events/{event}').result.filter((r) => Number(r.event_index) <= 1386);
    const all = [...rowsOf('/v2/blocks/{block_index}/events'), ...page2];
    let eventNames: string | null = null;
    serve(
      {
        '/v2/blocks/{block_index}/events': (req) => {
          eventNames = req.query.get('event_name');
          return pageOf(all, 'event_index', req);
        },
      },
      coreHeaders(325, 325, true),
    );
    const paged = new CounterpartyCoreBackend({ url: server.url, pageSize: 5, retry: { retries: 0 } });
    const events = await paged.getBlockEvents(325);
    assert.deepEqual(events.map((e) => e.event_index), [1382, 1385, 1387, 1388, 1389, 1390, 1391]);
    assert.deepEqual(events[0], { event_index: 1382, event: 'CREDIT', tx_hash: page2[1]!.tx_hash, block_index: 325, params: page2[1]!.params });
    assert.equal(eventNames, null);

    // A Core release that ignores the filter still yields only the named events.
    const credits = await paged.getBlockEvents(325, ['CREDIT', 'UTXO_MOVE']);
    assert.equal(eventNames, 'CREDIT,UTXO_MOVE');
    assert.deepEqual(credits.map((e) => [e.event_index, e.event]), [[1382, 'CREDIT'], [1385, 'CREDIT'], [1387, 'CREDIT']]);
    serve({});
  });

  void it('getBlockEvents refuses a block Core has not parsed yet (503)', async () => {
    serve({ '/v2/blocks/{block_index}/events': () => ({ body: { result: [], next_cursor: null, result_count: 0 } }) }, coreHeaders(325, 327, false));
    await assert.rejects(cp.getBlockEvents(326), (e: unknown) => e instanceof UpstreamUnavailable && e.status === 503 && e.backend === 'counterparty');
    assert.deepEqual(await cp.getBlockEvents(325), []);
    serve({});
  });

  void it('getAddressUtxos: Esplora-shaped rows; confirmations from X-BITCOIN-HEIGHT; mempool rows unconfirmed', async () => {
    serve(
      {
        '/v2/bitcoin/addresses/{address}/utxos': () => ({
          body: {
            result: [
              { txid: 'aa'.repeat(32), vout: 0, status: { confirmed: true, block_height: 850200, block_hash: '00'.repeat(32), block_time: 1718000000 }, value: 546, amount: 0.00000546 },
              { txid: 'bb'.repeat(32), vout: 3, status: { confirmed: false }, value: 100000, amount: 0.001 },
            ],
            next_cursor: null,
            result_count: null,
          },
        }),
      },
      coreHeaders(850214, 850214, true),
    );
    assert.deepEqual(await cp.getAddressUtxos(ADDR), [
      { txid: 'aa'.repeat(32), vout: 0, value_sats: 546, height: 850200, confirmations: 15 },
      { txid: 'bb'.repeat(32), vout: 3, value_sats: 100000, height: null, confirmations: 0 },
    ]);
    assert.equal(server.requests.at(-1)!.query.get('unconfirmed'), 'true');
    serve({});
  });
});
