import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Role } from './user-roles.js';
import './user-repository.js';
import './user-roles.js';
import '../credits/credits-schema.js';

/** One account as administrators see it. */
export interface UserSummary {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  createdAt: string;
  activeKeys: number;
  /** Credit balance, nano-USD. */
  balanceNanos: number;
}

export interface UserSearch {
  /** Part of the email or the name, any case. */
  search?: string;
  limit: number;
  offset: number;
}

/** better-auth keeps dates as Date (PostgreSQL) or ISO text / epoch (SQLite). */
function toIsoTime(value: unknown): string {
  const date = value instanceof Date ? value : new Date(value as string | number);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}

function likePattern(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** Every account, oldest first, optionally narrowed by a search on email and name. */
export async function searchUsers(
  db: Kysely<Database>,
  query: UserSearch,
): Promise<{ users: UserSummary[]; total: number }> {
  let base = db.selectFrom('user');
  const search = query.search?.trim();
  if (search) {
    const pattern = likePattern(search);
    base = base.where((eb) =>
      eb.or([
        sql<boolean>`lower(${eb.ref('user.email')}) like ${pattern} escape '\\'`,
        sql<boolean>`lower(${eb.ref('user.name')}) like ${pattern} escape '\\'`,
      ]),
    );
  }
  const count = await base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirst();
  const rows = await base
    .leftJoin('user_roles', 'user_roles.user_id', 'user.id')
    .leftJoin('credit_balances', 'credit_balances.user_id', 'user.id')
    .select([
      'user.id',
      'user.email',
      'user.name',
      'user.createdAt',
      'user.disabled',
      'user_roles.role',
      'credit_balances.balance_nanos',
    ])
    .orderBy('user.createdAt')
    .orderBy('user.id')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  const keyCounts = await activeKeyCounts(
    db,
    rows.map((row) => row.id),
  );
  return {
    total: Number(count?.count ?? 0),
    users: rows.map((row) => ({
      id: row.id,
      email: row.email,
      name: row.name,
      role: row.role === 'admin' ? 'admin' : 'user',
      disabled: Boolean(row.disabled),
      createdAt: toIsoTime(row.createdAt),
      activeKeys: keyCounts.get(row.id) ?? 0,
      balanceNanos: Number(row.balance_nanos ?? 0),
    })),
  };
}

export async function findUserSummary(db: Kysely<Database>, userId: string): Promise<UserSummary | undefined> {
  const row = await db
    .selectFrom('user')
    .leftJoin('user_roles', 'user_roles.user_id', 'user.id')
    .leftJoin('credit_balances', 'credit_balances.user_id', 'user.id')
    .select([
      'user.id',
      'user.email',
      'user.name',
      'user.createdAt',
      'user.disabled',
      'user_roles.role',
      'credit_balances.balance_nanos',
    ])
    .where('user.id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  const keyCounts = await activeKeyCounts(db, [row.id]);
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role === 'admin' ? 'admin' : 'user',
    disabled: Boolean(row.disabled),
    createdAt: toIsoTime(row.createdAt),
    activeKeys: keyCounts.get(row.id) ?? 0,
    balanceNanos: Number(row.balance_nanos ?? 0),
  };
}

async function activeKeyCounts(db: Kysely<Database>, userIds: string[]): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('api_keys')
    .select(['user_id', (eb) => eb.fn.countAll<number>().as('count')])
    .where('user_id', 'in', userIds)
    .where('revoked_at', 'is', null)
    .groupBy('user_id')
    .execute();
  return new Map(rows.map((row) => [row.user_id, Number(row.count)]));
}
