import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

/** Kept request and answer bodies (migration 0720), gzip-compressed, each cut at the cap. */
export interface RequestContentsTable {
  id: string;
  user_id: string;
  key_id: string | null;
  request_id: string;
  /** The request's start, equal to its usage event's created_at. */
  created_at: number;
  /** How the bodies are compressed: gzip. */
  encoding: string;
  request_body: Uint8Array | null;
  /** The body's size before the cap, in bytes. */
  request_bytes: number;
  request_truncated: number;
  response_body: Uint8Array | null;
  response_bytes: number;
  response_truncated: number;
  response_type: string | null;
}

declare module '../store/schema.js' {
  interface Database {
    request_contents: RequestContentsTable;
  }
}

type Executor = Kysely<Database> | Transaction<Database>;

export async function insertRequestContent(db: Executor, row: RequestContentsTable): Promise<void> {
  await db.insertInto('request_contents').values(row).execute();
}

/** The content of one of the user's requests (another user's is never found). */
export async function findRequestContent(
  db: Executor,
  userId: string,
  requestId: string,
  createdAt: number,
): Promise<RequestContentsTable | undefined> {
  return db
    .selectFrom('request_contents')
    .selectAll()
    .where('user_id', '=', userId)
    .where('request_id', '=', requestId)
    .where('created_at', '=', createdAt)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Erases content kept from requests that started before `cutoff` (epoch ms); returns how many. */
export async function deleteRequestContentBefore(db: Executor, cutoff: number): Promise<number> {
  const result = await db.deleteFrom('request_contents').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
