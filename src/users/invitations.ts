import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { ConflictError, InvalidRequestError } from '../shared/errors.js';
import { findUserByEmail } from './user-repository.js';

/** The `invitations` table (migration 0600). */
interface InvitationTable {
  id: string;
  email: string;
  /** SHA-256 of the token, hex: the token itself is shown once, in the link. */
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  used_by_user_id: string | null;
}

declare module '../store/schema.js' {
  interface Database {
    invitations: InvitationTable;
  }
}

export interface Invitation {
  id: string;
  email: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface IssuedInvitation extends Invitation {
  /** The secret, shown once: it is what the invitee brings to sign-up. */
  token: string;
  /** The console's sign-up page with the token filled in. */
  link: string;
}

export const DEFAULT_INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

function invalidInvitation(): InvalidRequestError {
  return new InvalidRequestError(
    'Sign-up here is by invitation: send the invite_token from your invitation link, with the email it was sent to. ' +
      'An invitation works once and expires.',
    'invite_token',
    'invalid_invitation',
  );
}

/**
 * Admin-issued, single-use, expiring sign-up invitations (`auth.sign_up: invite`). An invitation
 * is for one email address; the token is 32 random bytes and only its hash is stored, so a copy
 * of the database cannot be used to sign up. The CLI issues them; an admin API can call the same.
 */
export class InvitationService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly options: { publicUrl: string; ttlMs?: number },
  ) {}

  /** Issues an invitation for `email`; refuses an address that already has an account. */
  async issue(email: string, ttlMs = this.options.ttlMs ?? DEFAULT_INVITATION_TTL_MS): Promise<IssuedInvitation> {
    const address = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(address))
      throw new InvalidRequestError(`"${email}" is not an email address.`, 'email');
    if (await findUserByEmail(this.db, address))
      throw new ConflictError(`A user with the email ${address} already exists.`, 'user_exists');
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const row: InvitationTable = {
      id: this.ids.next('inv_'),
      email: address,
      token_hash: hashToken(token),
      created_at: now,
      expires_at: now + ttlMs,
      used_at: null,
      used_by_user_id: null,
    };
    await this.db.insertInto('invitations').values(row).execute();
    const query = new URLSearchParams({ invite: token, email: address });
    return { ...toInvitation(row), token, link: `${this.options.publicUrl}/sign-up?${query}` };
  }

  /**
   * Takes the invitation for this email: afterwards no other sign-up can use it. Compare-and-set
   * on `used_at`, so two sign-ups racing with one token get one account. Throws 400
   * `invalid_invitation` for a missing, unknown, used or expired token or another email.
   */
  async claim(token: unknown, email: string): Promise<Invitation> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 200) throw invalidInvitation();
    const now = this.clock.now();
    const row = await this.db
      .selectFrom('invitations')
      .selectAll()
      .where('token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row || row.email !== email.trim().toLowerCase() || row.used_at !== null || Number(row.expires_at) <= now)
      throw invalidInvitation();
    const taken = await this.db
      .updateTable('invitations')
      .set({ used_at: now })
      .where('id', '=', row.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) !== 1) throw invalidInvitation();
    return toInvitation({ ...row, used_at: now });
  }

  /** Gives a claimed invitation back when the sign-up it was claimed for did not happen. */
  async release(id: string): Promise<void> {
    await this.db
      .updateTable('invitations')
      .set({ used_at: null })
      .where('id', '=', id)
      .where('used_by_user_id', 'is', null)
      .execute();
  }

  /** Records which account the invitation became. */
  async markUsedBy(id: string, userId: string): Promise<void> {
    await this.db.updateTable('invitations').set({ used_by_user_id: userId }).where('id', '=', id).execute();
  }

  /** Invitations, newest first (for an admin listing). */
  async list(limit = 100): Promise<Invitation[]> {
    const rows = await this.db
      .selectFrom('invitations')
      .selectAll()
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toInvitation);
  }

  /** Withdraws an unused invitation; false when there is none to withdraw. */
  async revoke(id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('invitations')
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}

function toInvitation(row: InvitationTable): Invitation {
  return {
    id: row.id,
    email: row.email,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}
