import os from 'node:os';
import type { Db } from '../store/db.js';
import { lease, takeEpoch, type Lease } from './fence.js';

/** Hears every grant (a lease) and every loss (undefined) of a role, one at a time, in order. */
export type LeaseChange = (role: string, lease: Lease | undefined) => Promise<void>;

/**
 * Which instance runs each singleton role (the indexer, recovery, …). `start` contends for the
 * roles until `stop`; every grant comes with a fresh epoch (a Lease) the role's writes are
 * fenced by. Nothing runs until `start`: tests and one-shot commands build it and never start it.
 */
export interface Leadership {
  /** This instance's name in `leader_epochs.holder`. */
  readonly instance: string;
  start(roles: readonly string[], onChange: LeaseChange): Promise<void>;
  /** The roles contended for. */
  roles(): readonly string[];
  /** The roles this instance leads now, with their leases. */
  held(): ReadonlyMap<string, Lease>;
  /** Gives one role up (its lease was fenced out) and contends for it again. */
  resign(role: string): Promise<void>;
  /** Gives every role up so another instance takes over at once; the caller stops the roles' jobs first. */
  stop(): Promise<void>;
}

export function instanceName(port: number): string {
  return `${os.hostname()}:${process.pid}:${port}`;
}

/**
 * SQLite serves one process, so leadership is local and always held. Each start still takes a
 * new epoch, so the fenced writes run the same statements on both backends.
 */
export class LocalLeadership implements Leadership {
  private readonly leases = new Map<string, Lease>();
  private list: readonly string[] = [];
  private onChange: LeaseChange = async () => {};

  constructor(
    private readonly db: Db,
    readonly instance: string,
    private readonly now: () => number,
  ) {}

  async start(roles: readonly string[], onChange: LeaseChange): Promise<void> {
    this.list = [...roles];
    this.onChange = onChange;
    for (const role of roles) await this.take(role);
  }

  private async take(role: string): Promise<void> {
    const taken = await this.db.executeQuery(takeEpoch(this.db, role, this.instance, this.now()));
    const l = lease(role, Number(taken.rows[0]!.epoch));
    this.leases.set(role, l);
    await this.onChange(role, l);
  }

  roles(): readonly string[] {
    return this.list;
  }

  held(): ReadonlyMap<string, Lease> {
    return this.leases;
  }

  async resign(role: string): Promise<void> {
    if (!this.leases.delete(role)) return;
    await this.onChange(role, undefined);
    await this.take(role);
  }

  async stop(): Promise<void> {
    this.leases.clear();
  }
}
