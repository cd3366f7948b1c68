import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  table: string;
  schema: string;
  kind: string;
  column: string;
  type: string;
  type_schema: string;
  not_null: boolean;
  has_default: boolean;
  auto_incrementing: string | null;
  description: string | null;
}

/**
 * Kysely's PostgreSQL introspector, limited to the session's current schema (search_path), which
 * is the one schema a store uses. Kysely's own lists the tables of every schema in the database,
 * looking each schema up by name (`has_schema_privilege`, `pg_get_serial_sequence`): on a server
 * shared by schemas per test or per tenant, a schema that another client drops during that listing
 * failed our migration with `schema "…" does not exist` although nothing of ours was wrong (the
 * suite saw it; src/store/migrate-beside-dropped-schemas.test.ts). The migrator uses it to find its
 * own tables. Rows are narrowed by the namespace's OID first, so no other schema's name is looked up.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return rows.filter((row) => row.name !== null).map((row) => ({ name: row.name }));
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      with own as (select oid, nspname from pg_catalog.pg_namespace where nspname = current_schema())
      select c.relname as table, own.nspname as schema, c.relkind as kind, a.attname as column,
        typ.typname as type, dtns.nspname as type_schema, a.attnotnull as not_null,
        a.atthasdef as has_default,
        pg_get_serial_sequence(quote_ident(own.nspname) || '.' || quote_ident(c.relname), a.attname)
          as auto_incrementing,
        col_description(a.attrelid, a.attnum) as description
      from own
      join pg_catalog.pg_class c on c.relnamespace = own.oid
      join pg_catalog.pg_attribute a on a.attrelid = c.oid
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace dtns on dtns.oid = typ.typnamespace
      where c.relkind in ('r', 'v', 'p') and a.attnum >= 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && KYSELY_TABLES.has(row.table)) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.kind === 'v', columns: [] };
        tables.set(row.table, table);
      }
      (table.columns as TableMetadata['columns'][number][]).push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing !== null,
        comment: row.description ?? undefined,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** Kysely's default migration tables, left out unless asked for (as Kysely's introspector does). */
const KYSELY_TABLES = new Set([DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE]);

/** PostgreSQL, introspected through CurrentSchemaIntrospector: for the migrations' connection. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
