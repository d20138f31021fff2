import { PostgresDialect, sql, type DatabaseIntrospector, type DatabaseMetadata, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

/**
 * Kysely's own PostgreSQL introspector reads every table of every schema and calls
 * `pg_get_serial_sequence` on each: when another instance (or test) drops its schema meanwhile,
 * the query fails with "schema … does not exist" and so does our migration. The migrator only
 * asks which tables exist, so this one looks at our schema alone, without columns.
 */
class SchemaScopedIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<any>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const rows = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows.rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const rows = await sql<{ name: string; type: string }>`
      select table_name as name, table_type as type from information_schema.tables where table_schema = ${this.schema}`.execute(this.db);
    return rows.rows.map((r) => ({ name: r.name, schema: this.schema, isView: r.type === 'VIEW', columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

export class SchemaScopedPostgresDialect extends PostgresDialect {
  constructor(
    config: ConstructorParameters<typeof PostgresDialect>[0],
    private readonly schema: string,
  ) {
    super(config);
  }

  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SchemaScopedIntrospector(db, this.schema);
  }
}
