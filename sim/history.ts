/**
 * What happened, in order: every action a trader chose and how it ended, every fault, every
 * answer the market gave (status and code), every invariant check. Written as JSON lines to
 * `history.jsonl` in the run's folder as it happens, so a failure is explained even when the
 * simulator itself dies; the seed replays the same choices.
 */
import fs from 'node:fs';

/**
 * A broken invariant: its name and what broke. `known` names a limitation the market documents
 * and has not closed (docs/simulation.md): such a finding is reported apart, not as a violation,
 * and only a check that proved that very cause from the ledgers may set it.
 */
export interface Violation {
  name: string;
  message: string;
  known?: string;
}

export type Entry =
  | { t: number; kind: 'action'; actor: string; action: string; detail?: unknown }
  | { t: number; kind: 'outcome'; actor: string; action: string; ok: boolean; detail?: unknown }
  | { t: number; kind: 'fault'; fault: string; detail?: unknown }
  | { t: number; kind: 'answer'; actor: string; method: string; path: string; status: number; code?: string; instance: number }
  | { t: number; kind: 'check'; name: string; ok: boolean; message?: string; known?: string }
  | { t: number; kind: 'note'; message: string; detail?: unknown };

type Without<T, K extends keyof any> = T extends unknown ? Omit<T, K> : never;

export class History {
  private readonly out: fs.WriteStream;
  readonly started = Date.now();
  /** The last entries, kept for a failure's report. */
  private readonly recent: Entry[] = [];
  readonly counts = new Map<string, number>();

  constructor(readonly file: string, private readonly echo: (line: string) => void = () => {}) {
    this.out = fs.createWriteStream(file, { flags: 'w' });
  }

  add(e: Without<Entry, 't'>): void {
    const entry = { t: Date.now() - this.started, ...e } as Entry;
    this.out.write(`${JSON.stringify(entry)}\n`);
    this.recent.push(entry);
    if (this.recent.length > 400) this.recent.splice(0, 100);
    const skipped = entry.kind === 'outcome' && typeof entry.detail === 'string' && entry.detail.startsWith('skip:');
    const key = entry.kind === 'outcome' ? `${entry.action}:${skipped ? 'skipped' : entry.ok ? 'ok' : 'failed'}` : entry.kind === 'fault' ? `fault:${entry.fault}` : undefined;
    if (key) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (entry.kind === 'fault' || (entry.kind === 'check' && !entry.ok)) this.echo(`[${(entry.t / 1000).toFixed(1)}s] ${JSON.stringify(entry)}`);
  }

  last(n: number): Entry[] {
    return this.recent.slice(-n);
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => this.out.end(() => r()));
  }
}
