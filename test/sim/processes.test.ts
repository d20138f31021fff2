/**
 * The process rig's readiness: a port from `freePort` can be bound by another test file's child
 * before ours binds it. That stranger then answers our probe while our child dies with
 * EADDRINUSE (a crash test once read that death as its failpoint's). Up means the child itself
 * holds the socket; the rig then starts it again on another port.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, ownsListeningPort, startCli, startCliOnFreePort, type Child } from '../../sim/processes.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rig-ports-'));
const children: Child[] = [];
const stranger = http.createServer((_req, res) => res.end('{}'));
after(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await new Promise((r) => stranger.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

const devnetAt = (port: number, name: string) => ({
  args: ['devnet'],
  env: { DEVNET_PORT: String(port), DEVNET_HOST: '127.0.0.1', DEVNET_DATABASE_URL: `sqlite:${path.join(dir, `${name}.sqlite`)}`, DATA_DIR: dir },
  probe: `http://127.0.0.1:${port}/devnet/rpc`,
});

void test('a stranger answering on the chosen port is not our child: startCli fails with EADDRINUSE, startCliOnFreePort moves to another port', { timeout: 120_000 }, async () => {
  const taken = await freePort();
  await new Promise<void>((r) => stranger.listen(taken, '127.0.0.1', () => r()));
  assert.equal(ownsListeningPort(process.pid, taken), true, 'this process holds the stranger socket');

  const one = devnetAt(taken, 'one');
  // Kept, should it come up anyway (what the rig did before), so the file ends either way.
  await assert.rejects(startCli(one.args, one.env, one.probe).then((c) => (children.push(c), c)), /EADDRINUSE/);

  let first = true;
  const child = await startCliOnFreePort((port) => {
    const at = first ? taken : port;
    first = false;
    return devnetAt(at, 'two');
  });
  children.push(child);
  assert.notEqual(child.port, taken);
  assert.equal(ownsListeningPort(child.proc.pid!, child.port), true);
  assert.equal(ownsListeningPort(child.proc.pid!, taken), false);
});
