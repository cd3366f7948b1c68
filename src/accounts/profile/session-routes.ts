import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Auth } from '../../users/create-auth.js';
import type { Store } from '../../store/database.js';
import { deleteUserSessionsById } from '../../users/user-sessions.js';
import { toFetchHeaders } from '../../http/account-auth.js';
import { NotFoundError } from '../../shared/errors.js';
import { SessionIdParamsSchema, SessionListSchema, RevokedSessionsSchema } from './profile-schemas.js';

const errors = {
  400: { $ref: 'ErrorEnvelope#' },
  401: { $ref: 'ErrorEnvelope#' },
  404: { $ref: 'ErrorEnvelope#' },
};
const tags = ['account'];
const iso = (value: Date | string) => new Date(value).toISOString();

/**
 * The user's sign-in sessions (listed by better-auth, ended by id). Sessions are shown by id:
 * their tokens are credentials and never leave the store.
 */
export function registerSessionRoutes(app: FastifyInstance, auth: Auth, store: Store): void {
  const deleteSessions = (userId: string, ids: string[]) => deleteUserSessionsById(store.db, userId, ids);

  const sessionsOf = async (headers: Headers) => {
    const [sessions, current] = await Promise.all([
      auth.api.listSessions({ headers }),
      auth.api.getSession({ headers }),
    ]);
    return { sessions, currentId: current?.session.id };
  };

  app.get(
    '/user/sessions',
    {
      schema: {
        summary: 'The signed-in sessions of this account',
        tags,
        response: { 200: SessionListSchema, ...errors },
      },
    },
    async (request) => {
      const { sessions, currentId } = await sessionsOf(toFetchHeaders(request));
      return {
        data: sessions
          .sort((a, b) => new Date(b.createdAt).getTime() - new Date(a.createdAt).getTime())
          .map((session) => ({
            id: session.id,
            current: session.id === currentId,
            created_at: iso(session.createdAt),
            updated_at: iso(session.updatedAt),
            expires_at: iso(session.expiresAt),
            ip_address: session.ipAddress ?? null,
            user_agent: session.userAgent ?? null,
          })),
      };
    },
  );

  app.delete<{ Params: Static<typeof SessionIdParamsSchema> }>(
    '/user/sessions/:session_id',
    {
      schema: {
        summary: 'End one session (the current one too: that signs out)',
        tags,
        params: SessionIdParamsSchema,
        response: { 200: RevokedSessionsSchema, ...errors },
      },
    },
    async (request) => {
      const headers = toFetchHeaders(request);
      const { sessions } = await sessionsOf(headers);
      const session = sessions.find((candidate) => candidate.id === request.params.session_id);
      if (!session)
        throw new NotFoundError(
          `No session with the id ${request.params.session_id} for this account.`,
          'user_session_not_found',
          'session_id',
        );
      await deleteSessions(request.user!.id, [session.id]);
      return { revoked: 1 };
    },
  );

  app.delete(
    '/user/sessions',
    {
      schema: {
        summary: 'End every session except the current one',
        tags,
        response: { 200: RevokedSessionsSchema, ...errors },
      },
    },
    async (request) => {
      const headers = toFetchHeaders(request);
      const { sessions, currentId } = await sessionsOf(headers);
      const others = sessions.filter((session) => session.id !== currentId).map((session) => session.id);
      await deleteSessions(request.user!.id, others);
      return { revoked: others.length };
    },
  );
}
