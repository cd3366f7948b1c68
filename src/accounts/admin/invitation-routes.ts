import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import type { Invitation, InvitationService } from '../../users/invitations.js';
import { recordAudit } from '../../users/admin-audit-log.js';
import { NotFoundError } from '../../shared/errors.js';
import { limitParameter } from '../paging-schemas.js';

const InvitationSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  created_at: Type.String(),
  expires_at: Type.String(),
  used_at: Type.Union([Type.String(), Type.Null()]),
});
const IssuedInvitationSchema = Type.Object({
  ...InvitationSchema.properties,
  token: Type.String({ description: 'Shown once: the invitee signs up with it (invite_token)' }),
  link: Type.String({ description: 'The console’s sign-up page with the token and email filled in' }),
});
const InviteBodySchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    ttl_hours: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 24 * 365, description: 'Default: auth.invitation_ttl_hours' }),
    ),
  },
  { additionalProperties: false },
);
const InvitationIdParamsSchema = Type.Object({ invitation_id: Type.String({ minLength: 1, maxLength: 200 }) });
const ListQuerySchema = Type.Object({ limit: limitParameter(500, 100) }, { additionalProperties: false });

const errors = {
  400: { $ref: 'ErrorEnvelope#' },
  401: { $ref: 'ErrorEnvelope#' },
  403: { $ref: 'ErrorEnvelope#' },
  404: { $ref: 'ErrorEnvelope#' },
  409: { $ref: 'ErrorEnvelope#' },
};
const tags = ['admin'];
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const view = (invitation: Invitation) => ({
  id: invitation.id,
  email: invitation.email,
  created_at: iso(invitation.createdAt)!,
  expires_at: iso(invitation.expiresAt)!,
  used_at: iso(invitation.usedAt),
});

/** Sign-up invitations for `auth.sign_up: invite`, on the invitation service the CLI uses too. */
export function registerInvitationRoutes(
  app: FastifyInstance,
  deps: { store: Store; clock: Clock; invitations: InvitationService },
): void {
  app.post<{ Body: Static<typeof InviteBodySchema> }>(
    '/admin/invitations',
    {
      schema: {
        summary: 'Invite someone: a single-use, expiring sign-up link for one email address',
        tags,
        body: InviteBodySchema,
        response: { 200: IssuedInvitationSchema, ...errors },
      },
    },
    async (request) => {
      const ttl = request.body.ttl_hours ? request.body.ttl_hours * 3600 * 1000 : undefined;
      const issued = await deps.invitations.issue(request.body.email, ttl);
      await recordAudit(
        deps.store.db,
        {
          actorUserId: request.user!.id,
          action: 'invitation.create',
          targetUserId: null,
          details: { invitation_id: issued.id },
        },
        deps.clock.now(),
      );
      return { ...view(issued), token: issued.token, link: issued.link };
    },
  );

  app.get<{ Querystring: Static<typeof ListQuerySchema> }>(
    '/admin/invitations',
    {
      schema: {
        summary: 'Invitations, newest first',
        tags,
        querystring: ListQuerySchema,
        response: { 200: Type.Object({ data: Type.Array(InvitationSchema) }), ...errors },
      },
    },
    async (request) => ({ data: (await deps.invitations.list(request.query.limit ?? 100)).map(view) }),
  );

  app.delete<{ Params: Static<typeof InvitationIdParamsSchema> }>(
    '/admin/invitations/:invitation_id',
    {
      schema: {
        summary: 'Withdraw an unused invitation',
        tags,
        params: InvitationIdParamsSchema,
        response: { 200: Type.Object({ revoked: Type.Literal(true) }), ...errors },
      },
    },
    async (request) => {
      if (!(await deps.invitations.revoke(request.params.invitation_id)))
        throw new NotFoundError(
          `No unused invitation with the id ${request.params.invitation_id}.`,
          'invitation_not_found',
          'invitation_id',
        );
      await recordAudit(
        deps.store.db,
        {
          actorUserId: request.user!.id,
          action: 'invitation.revoke',
          targetUserId: null,
          details: { invitation_id: request.params.invitation_id },
        },
        deps.clock.now(),
      );
      return { revoked: true as const };
    },
  );
}
