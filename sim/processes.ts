/**
 * Real processes on this machine: the market's own CLI (`serve`, `devnet`, `signer`) and a
 * private redis-server. Each child's output is kept (the last 20 kB, for a failure's message) and,
 * when `logFile` is given, written whole to that file (the simulator scans the logs for leaks).
 * The test rigs (test/helpers/processes.ts) start their processes through here too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The node arguments that run one of the repository's TypeScript entry points (`src/cli/main.ts`,
 * `sim/main.ts`): its compiled JavaScript when this tree is the compiled copy `npm test` runs
 * (scripts/test.mjs builds one), else the TypeScript under tsx. Loading the app through tsx's
 * module hooks costs about 2 s of CPU per process, and the test rigs start hundreds.
 */
export function entryArgs(entry: string): string[] {
  const js = path.join(REPO_ROOT, entry.replace(/\.ts$/, '.js'));
  return fs.existsSync(js) ? ['--enable-source-maps', js] : ['--import', 'tsx', entry];
}

export interface Child {
  url: string;
  proc: ChildProcess;
  /** The last 20 kB the process printed (for a failure's message). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export const isRunning = (c: Child): boolean => c.proc.exitCode === null && c.proc.signalCode === null;

/**
 * True when process `pid` holds the listening TCP socket on `port` (Linux's /proc; elsewhere
 * assumed). A port from `freePort` is free only when asked: another test file's child can bind it
 * first, answer our readiness probe, and leave ours to die later with EADDRINUSE — so a child is
 * up only once the socket that answers is its own.
 */
export function ownsListeningPort(pid: number, port: number): boolean {
  const inodes = new Set<string>();
  try {
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
        const f = line.trim().split(/\s+/);
        // local_address is HEXIP:HEXPORT, st 0A is LISTEN, the inode is the tenth field.
        if (f.length > 9 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
      }
    }
  } catch {
    return true;
  }
  if (inodes.size === 0) return false;
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        return m !== null && inodes.has(m[1]!);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

async function until(up: () => Promise<boolean>, child: ChildProcess, out: () => string, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}:\n${out()}`);
    if (await up().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${what} did not come up in ${timeoutMs} ms:\n${out()}`);
}

export interface SpawnOptions {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** The base URL the child serves (its `url`). */
  url: string;
  /** True once the child is up. */
  up: () => Promise<boolean>;
  logFile?: string;
  timeoutMs?: number;
  /** The TCP port the child listens on: up also means the child itself holds it (ownsListeningPort). */
  port?: number;
}

export function spawnChild(o: SpawnOptions): Promise<Child> {
  const proc = spawn(o.command, o.args, { cwd: REPO_ROOT, env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = o.logFile ? fs.createWriteStream(o.logFile, { flags: 'a' }) : undefined;
  let buf = '';
  const take = (d: Buffer) => {
    buf = (buf + d.toString()).slice(-20_000);
    log?.write(d);
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  proc.once('exit', () => log?.end());
  const child: Child = {
    url: o.url,
    proc,
    output: () => buf,
    kill: async (signal = 'SIGKILL') => {
      if (!isRunning(child)) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill(signal);
      await exited;
    },
  };
  const port = o.port;
  const up = port === undefined ? o.up : async () => (await o.up()) && ownsListeningPort(proc.pid!, port);
  return until(up, proc, child.output, `${o.command} ${o.args.join(' ')}`, o.timeoutMs ?? 120_000).then(
    () => child,
    async (e: unknown) => {
      await child.kill();
      throw e;
    },
  );
}

/** True once `url` answers anything below 500. */
export const answers = (url: string) => async () => (await fetch(url)).status < 500;

/** `src/cli/main.ts <args>` (entryArgs), up once `probe` answers. */
export function startCli(args: string[], env: Record<string, string>, probe: string, logFile?: string, timeoutMs?: number): Promise<Child> {
  return spawnChild({
    command: process.execPath,
    args: [...entryArgs('src/cli/main.ts'), ...args],
    env: { LOG_LEVEL: 'warn', ...env },
    url: probe.replace(/\/[^/]*$/, ''),
    up: answers(probe),
    ...(new URL(probe).port ? { port: Number(new URL(probe).port) } : {}),
    ...(logFile ? { logFile } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

/**
 * `startCli` on a port from `freePort`, again on another port when that one was taken between
 * asking and binding (the child exits with EADDRINUSE): `at(port)` gives the arguments, the
 * environment and the probe URL for a port.
 */
export async function startCliOnFreePort(
  at: (port: number) => { args: string[]; env: Record<string, string>; probe: string },
  logFile?: string,
  timeoutMs?: number,
): Promise<Child & { port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const { args, env, probe } = at(port);
    try {
      return Object.assign(await startCli(args, env, probe, logFile, timeoutMs), { port });
    } catch (e) {
      if (attempt >= 4 || !String((e as Error).message).includes('EADDRINUSE')) throw e;
    }
  }
}

/** A redis-server of its own on `port` (no persistence), up once it accepts a connection. */
export function startRedis(port: number, logFile?: string): Promise<Child> {
  return spawnChild({
    command: 'redis-server',
    args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    url: `redis://127.0.0.1:${port}`,
    up: () => new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
      s.once('error', () => resolve(false));
    }),
    ...(logFile ? { logFile } : {}),
  });
}
