import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Store } from './db.js';
import { migrations } from './migrations/index.js';

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/**
 * Runs the numbered migrations. Kysely's migrator takes a lock row (in a
 * transaction on PostgreSQL) so two instances booting at once run each
 * migration exactly once.
 */
export async function migrate(store: Store): Promise<string[]> {
  return store.unbounded ? store.unbounded((db) => migrateOn(store, db)) : migrateOn(store, store.db);
}

async function migrateOn(store: Store, db: Store['db']): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(),
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
