import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/**
 * better-auth keeps a reset token as a row of its `verification` table: identifier
 * `reset-password:<token>`, value the user's id, an expiry. It never deletes a user's other
 * rows, so every link ever mailed kept working until it expired, also after a newer one was used
 * and after the owner changed the password (issue 25, item 5). These helpers keep one live token
 * per account and store only a hash of each.
 */
export const RESET_IDENTIFIER_PREFIX = 'reset-password:';

/** better-auth's table, as far as these helpers touch it. */
type VerificationTables = {
  verification: { identifier: string; value: string };
};

/**
 * How a reset identifier is stored (better-auth's `verification.storeIdentifier` hook): the prefix
 * kept, so a user's reset rows can be found, and a SHA-256 of the token instead of the token, so a
 * copy of the database holds no usable link. Links mailed before this was in place stop working.
 */
export function storedResetIdentifier(identifier: string): string {
  return `${RESET_IDENTIFIER_PREFIX}sha256:${createHash('sha256').update(identifier).digest('base64url')}`;
}

/**
 * Deletes the user's reset tokens, all of them or all but the one stored as `keep`: after a new
 * link is mailed (the newest wins), after a reset and after any password change.
 */
export async function revokeResetTokens(db: Kysely<Database>, userId: string, keep?: string): Promise<void> {
  let query = db
    .withTables<VerificationTables>()
    .deleteFrom('verification')
    .where('value', '=', userId)
    .where('identifier', 'like', `${RESET_IDENTIFIER_PREFIX}%`);
  if (keep !== undefined) query = query.where('identifier', '!=', keep);
  await query.execute();
}
