/**
 * Bitcoin Core's ZMQ `hashblock` notices (src/chain/bitcoin-core/zmq-blocks.ts) over a real ZMQ
 * socket: a PUB socket here sends what Core sends (topic, the hash in RPC order, a 4-byte
 * little-endian sequence), and the adapter hands each hash over, ignores other topics and
 * malformed bodies, logs a gap in the sequence, and closes cleanly. Then the wiring: a notice
 * runs the tip check at once (startJobs), while the timed check is a minute away.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Publisher } from 'zeromq';
import { ZmqBlockNotices } from '../../src/chain/bitcoin-core/zmq-blocks.js';
import { startJobs } from '../../src/jobs.js';
import { testApp } from '../helpers/app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A bound PUB socket on a free loopback port, as `-zmqpubhashblock=tcp://127.0.0.1:<port>`. */
async function publisher(): Promise<{ pub: Publisher; endpoint: string }> {
  const pub = new Publisher();
  await pub.bind('tcp://127.0.0.1:*');
  return { pub, endpoint: pub.lastEndpoint! };
}

const frames = (hashHex: string, seq: number, topic = 'hashblock') => {
  const n = Buffer.alloc(4);
  n.writeUInt32LE(seq >>> 0);
  return [topic, Buffer.from(hashHex, 'hex'), n];
};

/** Sends until `got` grows (a SUB socket misses what is sent before its subscription arrives). */
async function sendUntilHeard(pub: Publisher, msg: unknown[], got: unknown[], ms = 5_000) {
  const before = got.length;
  const end = Date.now() + ms;
  while (got.length === before) {
    if (Date.now() > end) throw new Error('the subscriber never heard the publisher');
    await pub.send(msg as never);
    await sleep(20);
  }
}

void test('hashblock notices: each hash in RPC order; other topics, bad bodies ignored; a gap logged; closed cleanly', async () => {
  const { pub, endpoint } = await publisher();
  const warnings: Array<Record<string, unknown>> = [];
  const notices = new ZmqBlockNotices(endpoint, { warn: (o: Record<string, unknown>) => warnings.push(o), debug: () => {} } as never);
  const got: string[] = [];
  await notices.start((h) => got.push(h));
  try {
    const a = '00'.repeat(31) + 'a1';
    await sendUntilHeard(pub, frames(a, 7), got);
    assert.equal(got.at(-1), a);
    // Not for us: a raw transaction topic is never subscribed to; a short body is refused.
    await pub.send(frames('ab'.repeat(32), 8, 'rawtx') as never);
    await pub.send(['hashblock', Buffer.alloc(31), Buffer.alloc(4)] as never);
    const b = '0f'.repeat(32);
    await pub.send(frames(b, 8) as never);
    const c = 'c3'.repeat(32);
    await pub.send(frames(c, 12) as never); // 9 to 11 lost
    for (let i = 0; !got.includes(c) && i < 250; i++) await sleep(20);
    // sendUntilHeard may have sent `a` again before the first copy arrived (a loaded machine):
    // what counts is what came after the last copy of it.
    assert.deepEqual(got.slice(got.lastIndexOf(a) + 1), [b, c]);
    assert.ok(warnings.some((w) => w.bytes === 31), 'the malformed notice is logged');
    assert.ok(warnings.some((w) => w.after === 8 && w.got === 12), 'the gap is logged');
  } finally {
    await notices.close();
    pub.close();
  }
  // Closed: nothing more arrives, and close() returned (the receive loop ended).
  assert.ok(got.length >= 3);
});

void test('a block notice runs the tip check at once; without it the block waits for the timed check', async () => {
  const t = await testApp({ env: { INDEXER_INTERVAL_MS: '600000', TIP_CHECK_INTERVAL_MS: '60000' } });
  const { pub, endpoint } = await publisher();
  const heard: string[] = [];
  // The devnet under the market, with Core's notices beside it (as CHAIN=bitcoin-core with BITCOIN_ZMQ_HASHBLOCK).
  const zmq = new ZmqBlockNotices(endpoint, t.ctx.logger);
  t.ctx.chain.blocks = { start: (cb) => zmq.start((h) => (heard.push(h), cb(h))), close: () => zmq.close() };
  await t.ctx.indexer.run();
  const jobs = await startJobs(t.ctx);
  try {
    const cursor = async () => (await t.ctx.indexer.cursor())?.hash;
    const [hash] = await t.ctx.devnet!.mine(1);
    await sleep(800);
    assert.notEqual(await cursor(), hash, 'no notice yet: the timed check is a minute away');
    const t0 = Date.now();
    await sendUntilHeard(pub, frames(hash!, 1), heard);
    for (let i = 0; (await cursor()) !== hash; i++) {
      assert.ok(i < 100, 'the notice brought the block in');
      await sleep(10);
    }
    assert.ok(Date.now() - t0 < 1_000, `indexed ${Date.now() - t0} ms after the notice`);
  } finally {
    await jobs.stop();
    pub.close();
    await t.close();
  }
});
