import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import './user-repository.js';

/** `admin` may use /api-account/admin/*; everyone else is a `user`. */
export const ROLES = ['admin', 'user'] as const;
export type Role = (typeof ROLES)[number];

interface UserRolesTable {
  user_id: string;
  role: string;
  updated_at: number;
}

declare module '../store/schema.js' {
  interface Database {
    user_roles: UserRolesTable;
  }
}

type Executor = Kysely<Database> | Transaction<Database>;

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export async function getRole(db: Executor, userId: string): Promise<Role> {
  const row = await db.selectFrom('user_roles').select('role').where('user_id', '=', userId).executeTakeFirst();
  return row?.role === 'admin' ? 'admin' : 'user';
}

/** A `user` keeps no row: only grants are stored. */
export async function setRole(db: Executor, userId: string, role: Role, now: number): Promise<void> {
  if (role === 'user') {
    await db.deleteFrom('user_roles').where('user_id', '=', userId).execute();
    return;
  }
  await db
    .insertInto('user_roles')
    .values({ user_id: userId, role, updated_at: now })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ role, updated_at: now }))
    .execute();
}

async function countAdmins(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('user_roles')
    .innerJoin('user', 'user.id', 'user_roles.user_id')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_roles.role', '=', 'admin')
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * The first account is the administrator. A store from before roles existed has accounts and no
 * admin: its oldest account becomes one, once (a setting records that this was decided, so an
 * installation whose admins all step down later is not given a new one behind its back).
 */
export async function ensureFirstAdmin(db: Kysely<Database>, now: number): Promise<string | null> {
  const decided = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'first_admin_granted')
    .executeTakeFirst();
  if (decided) return null;
  if ((await countAdmins(db)) > 0) {
    await markDecided(db, now);
    return null;
  }
  const oldest = await db
    .selectFrom('user')
    .select('id')
    .orderBy('createdAt')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!oldest) return null;
  await setRole(db, oldest.id, 'admin', now);
  await markDecided(db, now);
  return oldest.id;
}

async function markDecided(db: Kysely<Database>, now: number): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: 'first_admin_granted', value: 'true', updated_at: now })
    .onConflict((conflict) => conflict.column('key').doNothing())
    .execute();
}
