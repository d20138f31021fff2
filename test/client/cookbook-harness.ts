/**
 * The client as an integrator gets it, shared by the cookbook test files: built (`npm run build`
 * in client/), packed (`npm pack`), installed from the tarball into an empty project (offline:
 * its dependencies packed from the repository's node_modules and handed to the same `npm
 * install`), the examples copied beside it. Built once per content of client/ (a directory keyed
 * by its hash; a lock directory makes concurrent files wait for the first), since one build and
 * install take most of a file's time budget (`npm test` prepares it before the files run:
 * cookbook-prepare.ts). Then the market as `npm start` runs it (the devnet
 * inside, the demo market seeded), and `example(name, env)` runs one example with plain `node`,
 * returning its last stdout line parsed.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sha256 } from '@noble/hashes/sha2.js';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { childStore, startDevnetMarket, type Child } from '../helpers/processes.js';

export const run = promisify(execFile);
const CLIENT = path.join(REPO_ROOT, 'client');

/** A BIP-39 mnemonic of its own for `label` (the same every run). */
export const mnemonic = (label: string) => entropyToMnemonic(sha256(new TextEncoder().encode(`cookbook:${label}`)).slice(0, 16), wordlist);

/** The runtime dependencies of the client, transitively, as folders of the repository's node_modules. */
function dependencyFolders(): string[] {
  const seen = new Map<string, string>();
  const queue = Object.keys(JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8')).dependencies as Record<string, string>);
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    const dir = path.join(REPO_ROOT, 'node_modules', name);
    seen.set(name, dir);
    queue.push(...Object.keys((JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies ?? {}) as Record<string, string>));
  }
  return [...seen.values()];
}

function contentKey(): string {
  const h = crypto.createHash('sha256');
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else h.update(p).update(fs.readFileSync(p));
    }
  };
  for (const f of ['package.json', 'tsconfig.build.json', 'README.md']) h.update(fs.readFileSync(path.join(CLIENT, f)));
  walk(path.join(CLIENT, 'src'));
  walk(path.join(CLIENT, 'examples'));
  return h.digest('hex').slice(0, 16);
}

async function buildAndInstall(dir: string): Promise<void> {
  // The package assembled in a directory of its own (tsc's output beside package.json, README,
  // examples), so two runs never write the same dist/; packed as `npm pack` packs client/.
  const src = path.join(dir, 'package');
  fs.mkdirSync(src);
  for (const f of ['package.json', 'README.md', 'examples']) fs.cpSync(path.join(CLIENT, f), path.join(src, f), { recursive: true });
  await run(path.join(REPO_ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', path.join(src, 'dist')], { cwd: CLIENT });
  const packed = (await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: src })).stdout.trim().split('\n').pop()!;
  const deps = path.join(dir, 'deps');
  fs.mkdirSync(deps);
  await run('npm', ['pack', '--ignore-scripts', ...dependencyFolders()], { cwd: deps });
  const project = path.join(dir, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'cookbook', private: true, type: 'module' }));
  const tarballs = fs.readdirSync(deps).map((f) => path.join(deps, f));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--cache', path.join(dir, 'cache'), path.join(dir, packed), ...tarballs], { cwd: project });
  fs.cpSync(path.join(project, 'node_modules/@counterparty-marketplace/client/examples'), path.join(project, 'examples'), { recursive: true });
}

/** The project with the packed client installed (built once per content of client/). */
export async function installedClient(): Promise<string> {
  const dir = path.join(os.tmpdir(), `cpmkt-client-${contentKey()}`);
  const ready = path.join(dir, 'ready');
  const lock = `${dir}.lock`;
  for (const deadline = Date.now() + 110_000; Date.now() < deadline; ) {
    if (fs.existsSync(ready)) return path.join(dir, 'project');
    let mine = false;
    try {
      fs.mkdirSync(lock);
      mine = true;
    } catch {
      // Another file builds: wait for it (a lock older than five minutes is a dead run's).
      if (Date.now() - fs.statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 300_000) fs.rmSync(lock, { recursive: true, force: true });
    }
    if (mine) {
      try {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.mkdirSync(dir);
        await buildAndInstall(dir);
        fs.writeFileSync(ready, new Date().toISOString());
      } finally {
        fs.rmSync(lock, { recursive: true, force: true });
      }
      continue;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the packed client was not ready in time');
}

export interface Cookbook {
  project: string;
  market: Child;
  example(name: string, env?: Record<string, string>): Promise<any>;
  close(): Promise<void>;
}

/**
 * The installed client and a market (`npm start` on its own store) to run the examples against.
 * `demo: false` starts it without the demo market, for files whose examples make everything they
 * trade themselves (seeding the demo is most of a start on a busy machine). The start waits for
 * the market to answer for up to `startMs`, failing at once if it exits.
 */
export async function openCookbook(o: { demo?: boolean; startMs?: number } = {}): Promise<Cookbook> {
  const store = childStore('cookbook');
  // The market starts while the client installs (each takes tens of seconds on a busy machine).
  const [project, market] = await Promise.all([
    installedClient(),
    startDevnetMarket(
      store.env,
      { INDEXER_INTERVAL_MS: '500', RECOVERY_INTERVAL_MS: '500', WEBHOOK_INTERVAL_MS: '300', DEVNET_ATTACH_FEE_RAW: '0', LOG_LEVEL: 'warn', ...(o.demo === false ? { SEED_DEMO: 'false' } : {}) },
      o.startMs ?? 110_000,
    ),
  ]);
  const c: Cookbook = {
    project,
    market,
    async example(name, extra = {}) {
      const { stdout } = await run(process.execPath, [path.join('examples', name)], { cwd: project, env: exampleEnv(c, extra), timeout: 100_000 }).catch((e: { stderr?: string; stdout?: string; message: string }) => {
        throw new Error(`${name} failed: ${e.message}\n${e.stderr ?? ''}\n${e.stdout ?? ''}\nmarket:\n${market.output().slice(-3000)}`);
      });
      const lines = stdout.trim().split('\n');
      return JSON.parse(lines[lines.length - 1]!);
    },
    async close() {
      await market.kill('SIGTERM');
      await store.cleanup();
    },
  };
  return c;
}

/** The environment an example runs with (for a child started by hand). */
export const exampleEnv = (c: Cookbook, extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '', MARKET_URL: c.market.url, NETWORK: 'regtest', ...extra });
