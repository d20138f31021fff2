/**
 * BENCH_WAL_PAGES=1: how many database pages a measured completion writes, and whose pages they
 * are (a table or an index), read from the SQLite WAL the completions wrote. A diagnosis of write
 * amplification, not a figure: to keep every frame, it checkpoints the WAL before the measured
 * completions and turns the automatic checkpoint off while they run, which changes the CPU those
 * completions are measured at (no checkpoint copies pages back meanwhile). Never on PostgreSQL.
 */
import fs from 'node:fs';
import { sql } from 'kysely';
import type { Context } from '../src/context.js';

/** A WAL frame: a 24-byte header (its first 4 bytes the page number) and the page. */
const FRAME_HEADER = 24;
const WAL_HEADER = 32;

export interface WalPages {
  /** Pages written per completion (every transaction of the process meanwhile counts). */
  per_completion: number;
  /** Per table or index, pages per completion, largest first. */
  by_owner: Array<{ name: string; pages: number }>;
}

export interface WalProbe {
  /** Reads the WAL after `completions` completions and puts the automatic checkpoint back as it was. */
  read(completions: number): Promise<WalPages>;
}

export async function startWalProbe(ctx: Context): Promise<WalProbe | null> {
  if (!process.env.BENCH_WAL_PAGES || ctx.store.dialect !== 'sqlite') return null;
  const db = ctx.store.db;
  const file = `${ctx.config.DATABASE_URL.slice('sqlite:'.length)}-wal`;
  const pageSize = Number((await sql<{ page_size: number }>`PRAGMA page_size`.execute(db)).rows[0]!.page_size);
  const autocheckpoint = Number((await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(db)).rows[0]!.wal_autocheckpoint);
  await sql`PRAGMA wal_autocheckpoint = 0`.execute(db);
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  return {
    async read(completions) {
      const wal = fs.readFileSync(file);
      const frame = FRAME_HEADER + pageSize;
      const counts = new Map<number, number>();
      let frames = 0;
      for (let at = WAL_HEADER; at + frame <= wal.length; at += frame) {
        const page = wal.readUInt32BE(at);
        counts.set(page, (counts.get(page) ?? 0) + 1);
        frames++;
      }
      // dbstat names the b-tree each page belongs to (better-sqlite3 builds SQLite with it).
      const owners = (await sql<{ name: string; pageno: number }>`SELECT name, pageno FROM dbstat`.execute(db)).rows;
      const owner = new Map(owners.map((r) => [Number(r.pageno), r.name]));
      const by = new Map<string, number>();
      for (const [page, n] of counts) {
        const name = owner.get(page) ?? '(free or new)';
        by.set(name, (by.get(name) ?? 0) + n);
      }
      await sql.raw(`PRAGMA wal_autocheckpoint = ${autocheckpoint}`).execute(db);
      const per = (n: number) => Math.round((n / completions) * 10) / 10;
      return {
        per_completion: per(frames),
        by_owner: [...by].sort((a, b) => b[1] - a[1]).map(([name, n]) => ({ name, pages: per(n) })),
      };
    },
  };
}
