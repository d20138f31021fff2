/**
 * Faults, each switchable and drawn from the run's seed: what a market's machines do to it on a
 * bad day. Each fault is undone by itself after a drawn while (an instance restarts, Redis comes
 * back, the relay heals), and `heal` undoes whatever is still in force when the faults stop.
 */
import type { History } from './history.js';
import type { Rng } from './rng.js';
import { isRunning } from './processes.js';
import type { World } from './world.js';

export const FAULTS = ['kill', 'signer', 'redis', 'redis_hang', 'pg', 'pg_hang', 'cp_fault', 'relay_down', 'relay_hang', 'mempool', 'reorg'] as const;

/** The failures of Counterparty Core that `cp_fault` puts on (the devnet's CounterpartyFault). */
const CP_FAULTS = ['not_ready', 'electrs_failed', 'electrs_not_configured'] as const;
export type Fault = (typeof FAULTS)[number];

export function parseFaults(text: string | undefined): Fault[] {
  if (!text || text === 'none') return [];
  if (text === 'all') return [...FAULTS];
  const names = text.split(',').map((f) => f.trim());
  for (const n of names) if (!(FAULTS as readonly string[]).includes(n)) throw new Error(`unknown fault ${n}; known: ${FAULTS.join(', ')}, all, none`);
  return names as Fault[];
}

export class FaultInjector {
  private readonly pending = new Set<Promise<void>>();
  /** Processes killed and not yet started again: a second kill of one would schedule a second
   * start, and two processes would then run as one (a signer bound twice to its port, two
   * instances on one SQLite file), the first never stopped (seeds 6001 and 6002 leaked signers). */
  private readonly down = new Set<string>();
  private stopped = false;

  /**
   * `timeScale` multiplies every drawn while before a fault is undone (1 in a day; the unit tests
   * run the same draws at a tenth of the time, on a world of stand-ins).
   */
  constructor(private readonly world: World, private readonly rng: Rng, private readonly history: History, readonly enabled: Fault[], private readonly timeScale = 1) {}

  /** `fn` again until it succeeds or `giveUp(attempt)` says stop (then its error is thrown); each failure noted. */
  private async retrying(what: string, fn: () => Promise<unknown>, giveUp: (attempt: number) => boolean): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return void (await fn());
      } catch (e) {
        this.history.add({ kind: 'note', message: `${what} failed (attempt ${attempt}): ${(e as Error).message.slice(0, 300)}` });
        if (giveUp(attempt)) throw e;
      }
    }
  }

  /** Which faults apply to this world (Redis and PostgreSQL only where they run). */
  private applicable(): Fault[] {
    // On a real node (`--core`) Counterparty's faults are not ours to put on (the devnet follows the node).
    return this.enabled.filter((f) => (f === 'redis' || f === 'redis_hang' ? !!this.world.o.redis : f === 'pg' || f === 'pg_hang' ? this.world.o.backend === 'postgres' : f === 'cp_fault' ? !this.world.o.core : true));
  }

  /** Injects one fault now; its undoing runs in the background. */
  async inject(): Promise<void> {
    const choices = this.applicable();
    if (!choices.length || this.stopped) return;
    const f = this.rng.pick(choices);
    const w = this.world;
    const later = (ms: number, undo: () => Promise<void>) => {
      // A fault is undone whatever it takes: a restart that does not come up in time (a loaded
      // machine) is tried again, so a killed instance never stays down for the rest of the day
      // while the traders' failures look like a busy market (seeds 5004 and 5008 did that).
      const undoing = () => this.retrying(`undoing ${f}`, undo, (attempt) => this.stopped && attempt >= 3);
      const p = new Promise<void>((r) => setTimeout(r, ms * this.timeScale)).then(undoing).catch((e: Error) => this.history.add({ kind: 'note', message: `undoing ${f} gave up: ${e.message}` }));
      this.pending.add(p);
      void p.finally(() => this.pending.delete(p));
    };
    /** A process killed now and started again after a drawn while. */
    const restartLater = (name: string, key: string, min: number, max: number, start: () => Promise<void>, detail?: unknown) => {
      this.down.add(key);
      later(this.rng.delay(min, max), async () => {
        await start();
        this.down.delete(key);
        this.history.add({ kind: 'fault', fault: `${name}_restarted`, ...(detail === undefined ? {} : { detail }) });
      });
    };
    /** A fault on `key` held for a drawn 2-10 s: nothing else is drawn onto it meanwhile; `undo` ends it, recorded as `ended`. */
    const holdFor = (key: string, ended: string, undo: () => unknown) => {
      this.down.add(key);
      later(this.rng.delay(2_000, 10_000), async () => {
        await undo();
        this.down.delete(key);
        this.history.add({ kind: 'fault', fault: ended });
      });
    };
    // Only a process that runs (and is not being started again) is killed.
    const up = (key: string, c: Parameters<typeof isRunning>[0] | undefined) => !!c && isRunning(c) && !this.down.has(key);
    switch (f) {
      case 'kill': {
        const i = this.rng.int(0, w.markets.length - 1);
        if (!up(`market-${i}`, w.markets[i]) || w.live().length === 0) return;
        this.history.add({ kind: 'fault', fault: 'kill', detail: { instance: i } });
        await w.killMarket(i);
        restartLater('instance', `market-${i}`, 500, 5_000, async () => void (await w.startMarket(i)), { instance: i });
        return;
      }
      case 'signer':
        if (!up('signer', w.signer)) return;
        this.history.add({ kind: 'fault', fault: 'signer' });
        await w.killSigner();
        restartLater('signer', 'signer', 500, 4_000, () => w.startSigner());
        return;
      case 'redis':
        if (!up('redis', w.redis)) return;
        this.history.add({ kind: 'fault', fault: 'redis' });
        await w.stopRedis();
        restartLater('redis', 'redis', 3_000, 15_000, () => w.startRedis());
        return;
      case 'redis_hang':
        // Frozen, not gone: connections stay open and nothing answers (a server stuck in a fork, a
        // partition that drops packets), so every command waits for its timeout.
        if (!up('redis', w.redis)) return;
        this.history.add({ kind: 'fault', fault: 'redis_hang' });
        w.pauseRedis();
        holdFor('redis', 'redis_resumed', () => w.resumeRedis());
        return;
      case 'pg': {
        const n = await w.terminateDbSessions();
        this.history.add({ kind: 'fault', fault: 'pg', detail: { sessions: n } });
        return;
      }
      case 'pg_hang':
        // The database stalls for every instance (storage that hangs, a network that stops
        // forwarding): nothing is closed, queries wait, and past PG_QUERY_TIMEOUT_MS the
        // instances drop their connections mid-transaction (world.ts sets it to 6 s).
        if (this.down.has('pg')) return;
        this.history.add({ kind: 'fault', fault: 'pg_hang' });
        w.pauseDb();
        holdFor('pg', 'pg_resumed', () => w.resumeDb());
        return;
      case 'cp_fault': {
        // Counterparty Core as met in the field: catching up after a restart (503 on every ledger
        // route), or its Electrs down or not configured (400 on address UTXOs), for 2-10 s.
        if (this.down.has('cp')) return;
        const fault = this.rng.pick([...CP_FAULTS]);
        await w.control('counterparty-fault', { fault });
        this.history.add({ kind: 'fault', fault: 'cp_fault', detail: { fault } });
        holdFor('cp', 'cp_healed', () => w.control('counterparty-fault', { fault: 'none' }));
        return;
      }
      case 'relay_down':
        this.history.add({ kind: 'fault', fault: 'relay_down' });
        w.proxy.state.down = true;
        later(this.rng.delay(2_000, 10_000), async () => {
          w.proxy.state.down = false;
          this.history.add({ kind: 'fault', fault: 'relay_up' });
        });
        return;
      case 'relay_hang':
        this.history.add({ kind: 'fault', fault: 'relay_hang' });
        w.proxy.state.hold = true;
        later(this.rng.delay(2_000, 10_000), async () => {
          w.proxy.release();
          this.history.add({ kind: 'fault', fault: 'relay_released' });
        });
        return;
      case 'mempool': {
        if (w.o.core) {
          // A real node's mempool goes only with the node: an operator's restart (it comes back
          // empty, -persistmempool=0), the market meanwhile without its node.
          if (this.down.has('node')) return;
          this.down.add('node');
          this.history.add({ kind: 'fault', fault: 'node_restart' });
          await w.restartNode().finally(() => this.down.delete('node'));
          this.history.add({ kind: 'fault', fault: 'node_restarted' });
          return;
        }
        const r = await w.control('mempool/drop');
        this.history.add({ kind: 'fault', fault: 'mempool', detail: r });
        return;
      }
      case 'reorg': {
        const depth = this.rng.int(1, 3);
        const r = await w.control('reorg', { depth });
        this.history.add({ kind: 'fault', fault: 'reorg', detail: { depth, ...r } });
        return;
      }
    }
  }

  /** Stops injecting and undoes every fault still in force: every process up, the relay healed. */
  async heal(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.pending]);
    const w = this.world;
    w.proxy.state.down = false;
    w.proxy.release();
    // As a fault's own undoing, a start that does not come up in time (a loaded machine: seed 6002's
    // instance took over 180 s to catch up) is tried again before the day is given up.
    const start = (what: string, fn: () => Promise<unknown>) => this.retrying(`healing: starting ${what}`, fn, (attempt) => attempt >= 3);
    w.resumeRedis();
    w.resumeDb();
    if (!w.o.core) await start('Counterparty Core', () => w.control('counterparty-fault', { fault: 'none' }));
    if (w.o.redis && (!w.redis || !isRunning(w.redis))) await start('redis', () => w.startRedis());
    if (!w.signer || !isRunning(w.signer)) await start('the signer', () => w.startSigner());
    for (let i = 0; i < w.markets.length; i++) {
      const m = w.markets[i];
      if (!m || !isRunning(m)) await start(`instance ${i}`, () => w.startMarket(i));
    }
    this.history.add({ kind: 'fault', fault: 'healed' });
  }
}
