import { createHash } from 'node:crypto';
import { kyselyAdapter } from '@better-auth/kysely-adapter';
import type { BetterAuthOptions } from 'better-auth';
import type { DBAdapter, DBTransactionAdapter, Where } from 'better-auth/adapters';
import type { Kysely } from 'kysely';
import type { Dialect } from '../store/database.js';
import type { Database } from '../store/schema.js';

/** How a session token is kept in the session table's `token` column. */
const SESSION_TOKEN_HASH_PREFIX = 'sha256:';

/**
 * The stored form of a session token. Tokens are 32 random characters from better-auth, so a plain
 * SHA-256 is enough: there is nothing to guess, only a copy of the database to make useless.
 */
export function hashSessionToken(token: string): string {
  return SESSION_TOKEN_HASH_PREFIX + createHash('sha256').update(token, 'utf8').digest('base64url');
}

type Row = Record<string, unknown>;

/**
 * better-auth's Kysely adapter, except that the session table holds only a hash of each session
 * token (issue 16, finding 9): the token is hashed on create, in every where clause and in updates,
 * and the raw token the caller already holds is put back into the rows it asked for by token. Rows
 * found any other way (a user's sessions by user id) keep the hash, which opens nothing.
 */
export function hashedSessionKyselyAdapter(db: Kysely<Database>, dialect: Dialect) {
  const inner = kyselyAdapter(db, { type: dialect });
  return (options: BetterAuthOptions): DBAdapter<BetterAuthOptions> => {
    const adapter = inner(options);
    return {
      ...withHashedSessionTokens(adapter),
      transaction: (callback) => adapter.transaction((trx) => callback(withHashedSessionTokens(trx))),
    };
  };
}

function withHashedSessionTokens<A extends DBTransactionAdapter<BetterAuthOptions>>(adapter: A): A {
  return {
    ...adapter,
    async create(input) {
      if (input.model !== 'session' || typeof input.data.token !== 'string') return adapter.create(input);
      const token = input.data.token;
      const created = await adapter.create({ ...input, data: { ...input.data, token: hashSessionToken(token) } });
      return restoreToken(created as Row, new Map([[hashSessionToken(token), token]])) as typeof created;
    },
    async findOne(input) {
      if (input.model !== 'session') return adapter.findOne(input);
      const { where, tokens } = hashWhere(input.where);
      return restoreToken((await adapter.findOne({ ...input, where })) as Row | null, tokens) as never;
    },
    async findMany(input) {
      if (input.model !== 'session' || !input.where) return adapter.findMany(input);
      const { where, tokens } = hashWhere(input.where);
      const rows = await adapter.findMany({ ...input, where });
      return rows.map((row) => restoreToken(row as Row, tokens)) as never;
    },
    async count(input) {
      if (input.model !== 'session' || !input.where) return adapter.count(input);
      return adapter.count({ ...input, where: hashWhere(input.where).where });
    },
    async update(input) {
      if (input.model !== 'session') return adapter.update(input);
      const { where, tokens } = hashWhere(input.where);
      const updated = await adapter.update({ ...input, where, update: hashUpdate(input.update, tokens) });
      return restoreToken(updated as Row | null, tokens) as never;
    },
    async updateMany(input) {
      if (input.model !== 'session') return adapter.updateMany(input);
      const { where, tokens } = hashWhere(input.where);
      return adapter.updateMany({ ...input, where, update: hashUpdate(input.update, tokens) });
    },
    async delete(input) {
      if (input.model !== 'session') return adapter.delete(input);
      return adapter.delete({ ...input, where: hashWhere(input.where).where });
    },
    async deleteMany(input) {
      if (input.model !== 'session') return adapter.deleteMany(input);
      return adapter.deleteMany({ ...input, where: hashWhere(input.where).where });
    },
    async consumeOne(input) {
      if (input.model !== 'session') return adapter.consumeOne(input);
      const { where, tokens } = hashWhere(input.where);
      return restoreToken((await adapter.consumeOne({ ...input, where })) as Row | null, tokens) as never;
    },
    async incrementOne(input) {
      if (input.model !== 'session') return adapter.incrementOne(input);
      const { where, tokens } = hashWhere(input.where);
      const set = input.set ? hashUpdate(input.set, tokens) : undefined;
      return restoreToken((await adapter.incrementOne({ ...input, where, set })) as Row | null, tokens) as never;
    },
  };
}

/** Operators that still mean the same on hashes; a pattern match on a token cannot. */
const HASHABLE_OPERATORS = new Set(['eq', 'ne', 'in', 'not_in']);

/** Replaces each token in `where` by its hash; `tokens` maps each hash back to the raw token. */
function hashWhere(where: Where[]): { where: Where[]; tokens: Map<string, string> } {
  const tokens = new Map<string, string>();
  const hashOne = (value: unknown): string => {
    if (typeof value !== 'string') throw new Error('session tokens are strings');
    const hash = hashSessionToken(value);
    tokens.set(hash, value);
    return hash;
  };
  const hashed = where.map((clause): Where => {
    if (clause.field !== 'token') return clause;
    const operator = clause.operator ?? 'eq';
    if (!HASHABLE_OPERATORS.has(operator))
      throw new Error(`session tokens are stored hashed: the "${operator}" operator cannot match them`);
    if (Array.isArray(clause.value)) return { ...clause, value: clause.value.map(hashOne) };
    return { ...clause, value: hashOne(clause.value) };
  });
  return { where: hashed, tokens };
}

function hashUpdate(update: Record<string, unknown>, tokens: Map<string, string>): Record<string, unknown> {
  if (typeof update.token !== 'string') return update;
  const hash = hashSessionToken(update.token);
  tokens.set(hash, update.token);
  return { ...update, token: hash };
}

/** The row with the caller's raw token in place of its hash, when the caller named that token. */
function restoreToken(row: Row | null, tokens: Map<string, string>): Row | null {
  if (!row || typeof row.token !== 'string') return row;
  const token = tokens.get(row.token);
  return token === undefined ? row : { ...row, token };
}
