/**
 * The cookbook, first part: the packed client installed in an empty project (cookbook-harness.ts),
 * its `exports` and version; then sign in, read a book and buy the cheapest, each example run
 * with plain `node` against the market as `npm start` runs it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mnemonic, openCookbook, run, type Cookbook } from './cookbook-harness.js';

let c: Cookbook;
void describe('client cookbook: install, sign in, read, buy', () => {
  before(async () => {
    c = await openCookbook();
  });
  after(async () => c?.close());

  void it('the installed package: built JavaScript and declarations behind `exports`, its version the API version', async () => {
    const dir = path.join(c.project, 'node_modules/@counterparty-marketplace/client');
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    assert.deepEqual(pkg.exports['.'], { types: './dist/index.d.ts', import: './dist/index.js', default: './dist/index.js' });
    assert.ok(fs.existsSync(path.join(dir, 'dist/index.d.ts')), 'type declarations');
    assert.ok(!fs.existsSync(path.join(dir, 'src')), 'no TypeScript source shipped');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "import { API_VERSION } from '@counterparty-marketplace/client'; console.log(API_VERSION)"], { cwd: c.project });
    assert.equal(stdout.trim(), pkg.version);
    const served = (await (await fetch(`${c.market.url}/v1/openapi.json`)).json()) as { info: { version: string } };
    assert.equal(served.info.version, pkg.version, 'the client speaks the served API version');
  });

  void it('sign in, read a book, buy the cheapest', async () => {
    const who = await c.example('sign-in.mjs', { MNEMONIC: mnemonic('reader') });
    assert.equal(who.network, 'regtest');
    assert.match(who.address, /^bcrt1q/);
    assert.match(who.bidder_pubkey, /^[0-9a-f]{64}$/);
    const book = await c.example('read-book.mjs');
    assert.ok(book.listings.length > 0, JSON.stringify(book));
    const bought = await c.example('buy-cheapest.mjs', { MNEMONIC: mnemonic('buyer') });
    assert.equal(bought.listing_id, book.listings[0].id, 'the cheapest');
    assert.match(bought.txid, /^[0-9a-f]{64}$/);
  });
});
