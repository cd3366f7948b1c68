import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/** better-auth's user table, as far as we read it. */
interface AuthUserTable {
  id: string;
  email: string;
  name: string;
  createdAt: unknown;
  /** Set by `gateway users disable` (a boolean, or 0/1 on SQLite). */
  disabled: boolean | number | null;
}

declare module '../store/schema.js' {
  interface Database {
    user: AuthUserTable;
  }
}

export async function findUserByEmail(
  db: Kysely<Database>,
  email: string,
): Promise<{ id: string; email: string; name: string } | undefined> {
  return db
    .selectFrom('user')
    .select(['id', 'email', 'name'])
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
}

export async function countUsers(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('user')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
