import type { Generated, Kysely, Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

/** What an administrator did. The API lists these names in docs/admin.md. */
type AuditAction =
  | 'user.disable'
  | 'user.enable'
  | 'user.set_role'
  | 'credits.grant'
  | 'credits.deduct'
  | 'order.refund'
  | 'invitation.create'
  | 'invitation.revoke';

interface AdminAuditLogTable {
  id: Generated<number>;
  /** Null when the action came from the command line. */
  actor_user_id: string | null;
  action: string;
  target_user_id: string | null;
  /** JSON object: amounts, reasons, order ids. Never a password or a secret. */
  details: string;
  created_at: number;
}

declare module '../store/schema.js' {
  interface Database {
    admin_audit_log: AdminAuditLogTable;
  }
}

type Executor = Kysely<Database> | Transaction<Database>;

export interface AuditEntry {
  actorUserId: string | null;
  action: AuditAction;
  targetUserId: string | null;
  details: Record<string, unknown>;
}

export async function recordAudit(db: Executor, entry: AuditEntry, now: number): Promise<void> {
  await db
    .insertInto('admin_audit_log')
    .values({
      actor_user_id: entry.actorUserId,
      action: entry.action,
      target_user_id: entry.targetUserId,
      details: JSON.stringify(entry.details),
      created_at: now,
    })
    .execute();
}

export interface AuditRecord {
  id: number;
  actorUserId: string | null;
  actorEmail: string | null;
  action: string;
  targetUserId: string | null;
  targetEmail: string | null;
  details: Record<string, unknown>;
  createdAt: number;
}

export interface AuditQuery {
  limit: number;
  offset: number;
  action?: string;
  targetUserId?: string;
}

/**
 * Newest first. Emails are looked up at read time (the log stores ids only), so an erased
 * account's address is gone from the log too.
 */
export async function listAudit(db: Executor, query: AuditQuery): Promise<{ rows: AuditRecord[]; total: number }> {
  let base = db.selectFrom('admin_audit_log');
  if (query.action) base = base.where('admin_audit_log.action', '=', query.action);
  if (query.targetUserId) base = base.where('admin_audit_log.target_user_id', '=', query.targetUserId);
  const count = await base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirst();
  const rows = await base
    .leftJoin('user as actor', 'actor.id', 'admin_audit_log.actor_user_id')
    .leftJoin('user as target', 'target.id', 'admin_audit_log.target_user_id')
    .select([
      'admin_audit_log.id',
      'admin_audit_log.actor_user_id',
      'actor.email as actor_email',
      'admin_audit_log.action',
      'admin_audit_log.target_user_id',
      'target.email as target_email',
      'admin_audit_log.details',
      'admin_audit_log.created_at',
    ])
    .orderBy('admin_audit_log.id', 'desc')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return {
    total: Number(count?.count ?? 0),
    rows: rows.map((row) => ({
      id: Number(row.id),
      actorUserId: row.actor_user_id,
      actorEmail: row.actor_email ?? null,
      action: row.action,
      targetUserId: row.target_user_id,
      targetEmail: row.target_email ?? null,
      details: JSON.parse(row.details) as Record<string, unknown>,
      createdAt: Number(row.created_at),
    })),
  };
}
