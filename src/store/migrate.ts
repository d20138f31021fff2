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
  const migrator = new Migrator({
    db: store.db,
    provider: new StaticProvider(),
    ...(store.schema ? { migrationTableSchema: store.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
