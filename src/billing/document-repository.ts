import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../store/schema.js';
import type { IdGenerator } from '../shared/ids.js';
import type { BillingDocumentsTable } from './billing-tables.js';
import './billing-tables.js';

export type DocumentRow = Selectable<BillingDocumentsTable>;
export type DocumentType = BillingDocumentsTable['type'];

/**
 * The order's document of this type, numbered on first request. Numbers are sequential per type
 * with no gaps; two instances numbering at once collide on the unique (type, number) and retry.
 */
export async function getOrIssueDocument(
  db: Kysely<Database>,
  ids: IdGenerator,
  orderId: string,
  type: DocumentType,
  now: number,
): Promise<DocumentRow> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const existing = await db
      .selectFrom('billing_documents')
      .selectAll()
      .where('order_id', '=', orderId)
      .where('type', '=', type)
      .executeTakeFirst();
    if (existing) return existing;
    const { last } = await db
      .selectFrom('billing_documents')
      .select((eb) => eb.fn.max('number').as('last'))
      .where('type', '=', type)
      .executeTakeFirstOrThrow();
    const row: DocumentRow = {
      id: ids.next('doc_'),
      order_id: orderId,
      type,
      number: Number(last ?? 0) + 1,
      created_at: now,
    };
    try {
      await db.insertInto('billing_documents').values(row).execute();
      return row;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new Error(`could not number a ${type} for order ${orderId}`);
}

export async function findDocument(db: Kysely<Database>, id: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('billing_documents').selectAll().where('id', '=', id).executeTakeFirst();
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function documentNumber(type: DocumentType, number: number): string {
  return `${type === 'invoice' ? 'INV' : 'RCT'}-${String(number).padStart(6, '0')}`;
}
