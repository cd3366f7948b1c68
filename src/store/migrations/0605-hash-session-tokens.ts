import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Session tokens are kept as `sha256:<base64url of SHA-256>` from now on (users/hashed-session-adapter.ts);
 * the plaintext tokens of an older installation are hashed in place, so nobody is signed out. The
 * session table is better-auth's and is created after our migrations: on a new installation it is not
 * there yet and there is nothing to do. The format is copied here on purpose (migrations are frozen).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (!(await sessionTableExists(db, dialect))) return;
  const rows = await sql<{ id: string; token: string }>`
    select id, token from "session" where token not like ${'sha256:%'}`.execute(db);
  for (const row of rows.rows) {
    const hash = 'sha256:' + createHash('sha256').update(row.token, 'utf8').digest('base64url');
    await sql`update "session" set token = ${hash} where id = ${row.id}`.execute(db);
  }
}

async function sessionTableExists(db: Kysely<unknown>, dialect: Dialect): Promise<boolean> {
  if (dialect === 'postgres') {
    // to_regclass follows the search path, as every unqualified query here does.
    const result = await sql<{ found: string | null }>`select to_regclass('session')::text as found`.execute(db);
    return result.rows[0]?.found != null;
  }
  const result = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name = 'session'`.execute(db);
  return result.rows.length > 0;
}
