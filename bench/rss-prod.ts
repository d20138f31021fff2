/**
 * `rss_idle_prod_mb` (issue #33 item 5): `npm run build`, then `start:prod` (the node flags and
 * arguments of package.json's script, read from it: `startProdArgs`) with the demo market on a
 * fresh data directory; its resident memory (VmRSS) once it has listened and then stood idle for
 * `SETTLE_S` seconds.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const RSS_IDLE_BOUND_MB = 120;
const SETTLE_S = Number(process.env.BENCH_RSS_SETTLE_S ?? 10);

/** `node`'s arguments in package.json's `start:prod` (`node <flags> dist/cli/main.js serve`), so the bench runs what it runs. */
export function startProdArgs(): string[] {
  const script = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts['start:prod'] ?? '';
  const [node, ...args] = script.trim().split(/\s+/);
  if (node !== 'node' || !args.includes('dist/cli/main.js')) throw new Error(`start:prod is not a plain node command: ${script}`);
  return args;
}

const rssOf = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

export async function prodIdleRss(): Promise<{ skipped: string } | { rss_mb: number; settle_s: number; bound_mb: number }> {
  if (!fs.existsSync('/proc/self/status')) return { skipped: 'no /proc to read resident memory from' };
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    const b = spawnSync('npm', ['run', '-s', 'build'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (b.status !== 0) return { skipped: `npm run build failed: ${b.stderr.slice(-500)}` };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-rss-'));
  // The defaults (SQLite in the data directory, no Redis, the devnet and its demo market), as `npm run start:prod` on a fresh checkout.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    LOG_LEVEL: 'info',
  };
  for (const k of ['DATABASE_URL', 'DATABASE_SCHEMA', 'REDIS_URL', 'SEED_DEMO', 'CHAIN']) delete env[k];
  const child = spawn(process.execPath, startProdArgs(), {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const listening = new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`start:prod did not listen within 120 s: ${out.slice(-500)}`)), 120_000);
      const look = (b: Buffer) => {
        out += b.toString();
        if (out.includes('marketplace API listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', look);
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      child.on('exit', (code) => reject(new Error(`start:prod exited ${code}: ${out.slice(-500)}`)));
    });
    await listening;
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    return {
      rss_mb: Math.round(rssOf(child.pid!) * 10) / 10,
      settle_s: SETTLE_S,
      bound_mb: RSS_IDLE_BOUND_MB,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
