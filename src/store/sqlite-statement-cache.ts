import type { Database as SqliteConnection, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct statements kept prepared; beyond it the least recently used is dropped. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The SQLite connection as Kysely's dialect sees it, with prepared statements kept by their SQL
 * text. Kysely prepares every query afresh; on the settlement path the same few statements run
 * for every batch, and preparing them was a tenth of the gateway's CPU per request. Reusing a
 * statement is safe here: Kysely runs one query at a time on the connection, and better-sqlite3
 * re-prepares by itself when a migration changes the schema.
 */
export function withStatementCache(connection: SqliteConnection, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => {
      statements.clear();
      connection.close();
    },
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (statement) {
        // Most recently used last: Map keeps insertion order, so the first key is the oldest.
        statements.delete(sql);
      } else {
        statement = connection.prepare(sql);
        if (statements.size >= size) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}
