import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import type { Auth } from '../../users/create-auth.js';
import type { KeyChangeAnnouncer } from '../../keys/key-change-broadcast.js';
import type { BillingService } from '../../billing/billing-service.js';
import { orderView } from '../../billing/order-view.js';
import { applyLedgerEntry } from '../../credits/credit-ledger.js';
import { nanosToUsdNumber, USD_DECIMALS } from '../../metering/money.js';
import { decimalToUnits } from '../../shared/decimal.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../shared/errors.js';
import { findUserSummary, searchUsers, type UserSummary } from '../../users/user-directory.js';
import { setUserDisabled } from '../../users/set-user-disabled.js';
import { setRole } from '../../users/user-roles.js';
import { listAudit, recordAudit } from '../../users/admin-audit-log.js';
import { usageResponse } from '../usage/usage-routes.js';
import { UsageReportSchema } from '../usage/usage-schemas.js';
import {
  activityDetailResponse,
  type ContentReader,
  activityDetailSchema,
  activityListResponse,
  activityListSchema,
} from '../activity/activity-routes.js';
import { RequestIdParamsSchema } from '../activity/activity-schemas.js';
import {
  AdminUserListSchema,
  AdminUserSchema,
  AuditLogQuerySchema,
  AuditLogSchema,
  CreditsBodySchema,
  CreditsResultSchema,
  OrderIdParamsSchema,
  ReasonBodySchema,
  RoleBodySchema,
  UserIdParamsSchema,
  UsersQuerySchema,
} from './admin-schemas.js';
import { OrderSchema } from '../../billing/order-schema.js';
import { typed } from '../../shared/typebox-type-provider.js';

export interface AdminRouteDeps {
  store: Store;
  clock: Clock;
  auth: Auth;
  announcer: KeyChangeAnnouncer;
  billing?: BillingService;
  /** Kept request content (content logging), shown with a request's detail. */
  content?: ContentReader;
}

const errors = {
  400: { $ref: 'ErrorEnvelope#' },
  401: { $ref: 'ErrorEnvelope#' },
  403: { $ref: 'ErrorEnvelope#' },
  404: { $ref: 'ErrorEnvelope#' },
  409: { $ref: 'ErrorEnvelope#' },
};
const tags = ['admin'];

function adminUserView(user: UserSummary) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    disabled: user.disabled,
    created_at: user.createdAt,
    active_keys: user.activeKeys,
    balance: nanosToUsdNumber(user.balanceNanos),
    balance_nanos: user.balanceNanos,
  };
}

/**
 * /api-account/admin/*, registered inside a scope whose hooks already require a session and the
 * admin role. Every change is written to the audit log with the acting administrator.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminRouteDeps): void {
  // Schemas are used inline: addSchema in a child scope would give it Fastify's default validator.
  const { store, clock } = deps;

  const userOr404 = async (userId: string) => {
    const user = await findUserSummary(store.db, userId);
    if (!user) throw new NotFoundError(`No account with the id ${userId}.`, 'user_not_found', 'user_id');
    return user;
  };
  /** An active admin other than `userId` exists (so `userId` may stop being one). */
  const anotherActiveAdmin = async (userId: string) => {
    const row = await store.db
      .selectFrom('user_roles')
      .innerJoin('user', 'user.id', 'user_roles.user_id')
      .select('user.id')
      .where('user_roles.role', '=', 'admin')
      .where('user.id', '!=', userId)
      .where((eb) =>
        eb.or([eb('user.disabled', 'is', null), eb('user.disabled', '=', store.dialect === 'sqlite' ? 0 : false)]),
      )
      .executeTakeFirst();
    return row !== undefined;
  };

  app.get<{ Querystring: Static<typeof UsersQuerySchema> }>(
    '/admin/users',
    {
      schema: {
        summary: 'List and search accounts',
        tags,
        querystring: UsersQuerySchema,
        response: { 200: AdminUserListSchema, ...errors },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const offset = request.query.offset ?? 0;
      const { users, total } = await searchUsers(store.db, { search: request.query.search, limit, offset });
      return { data: users.map(adminUserView), total, limit, offset };
    },
  );

  app.get<{ Params: Static<typeof UserIdParamsSchema> }>(
    '/admin/users/:user_id',
    {
      schema: {
        summary: 'One account',
        tags,
        params: UserIdParamsSchema,
        response: { 200: AdminUserSchema, ...errors },
      },
    },
    async (request) => adminUserView(await userOr404(request.params.user_id)),
  );

  for (const action of ['disable', 'enable'] as const) {
    app.post<{ Params: Static<typeof UserIdParamsSchema>; Body: Static<typeof ReasonBodySchema> | undefined }>(
      `/admin/users/:user_id/${action}`,
      {
        schema: {
          summary:
            action === 'disable'
              ? 'Disable an account: its sessions end, its API keys are revoked at once, sign-in is refused'
              : 'Enable an account again (revoked keys stay revoked)',
          tags,
          params: UserIdParamsSchema,
          body: ReasonBodySchema,
          response: { 200: AdminUserSchema, ...errors },
        },
      },
      async (request) => {
        const target = await userOr404(request.params.user_id);
        if (action === 'disable' && target.role === 'admin' && !(await anotherActiveAdmin(target.id)))
          throw new ConflictError('This is the only active administrator; it cannot be disabled.', 'last_admin');
        const now = clock.now();
        const { revokedKeyHashes } = await setUserDisabled(deps.auth, store, target.id, action === 'disable', now);
        for (const hash of revokedKeyHashes) await deps.announcer.announce(hash);
        await recordAudit(
          store.db,
          {
            actorUserId: request.user!.id,
            action: action === 'disable' ? 'user.disable' : 'user.enable',
            targetUserId: target.id,
            details: {
              ...(request.body?.reason ? { reason: request.body.reason } : {}),
              ...(action === 'disable' ? { revoked_keys: revokedKeyHashes.length } : {}),
            },
          },
          now,
        );
        return adminUserView(await userOr404(target.id));
      },
    );
  }

  app.put<{ Params: Static<typeof UserIdParamsSchema>; Body: Static<typeof RoleBodySchema> }>(
    '/admin/users/:user_id/role',
    {
      schema: {
        summary: 'Grant or take away the admin role',
        tags,
        params: UserIdParamsSchema,
        body: RoleBodySchema,
        response: { 200: AdminUserSchema, ...errors },
      },
    },
    async (request) => {
      const target = await userOr404(request.params.user_id);
      const role = request.body.role;
      if (role === 'user' && target.role === 'admin' && !(await anotherActiveAdmin(target.id)))
        throw new ConflictError('This is the only active administrator; its role cannot be taken away.', 'last_admin');
      const now = clock.now();
      await setRole(store.db, target.id, role, now);
      await recordAudit(
        store.db,
        {
          actorUserId: request.user!.id,
          action: 'user.set_role',
          targetUserId: target.id,
          details: { role, previous_role: target.role },
        },
        now,
      );
      return adminUserView(await userOr404(target.id));
    },
  );

  app.post<{ Params: Static<typeof UserIdParamsSchema>; Body: Static<typeof CreditsBodySchema> }>(
    '/admin/users/:user_id/credits',
    {
      schema: {
        summary: 'Grant (positive amount) or deduct (negative) credits, with a reason; a ledger entry',
        tags,
        params: UserIdParamsSchema,
        body: CreditsBodySchema,
        response: { 200: CreditsResultSchema, ...errors },
      },
    },
    async (request) => {
      const target = await userOr404(request.params.user_id);
      const nanos = parseSignedUsd(request.body.amount);
      const reason = request.body.reason.trim();
      if (!reason) throw new InvalidRequestError('reason must not be blank.', 'reason', 'invalid_value');
      const kind = nanos > 0 ? 'grant' : 'adjustment';
      const reference = `admin:${kind}:${randomUUID()}`;
      const now = clock.now();
      const result = await applyLedgerEntry(
        store,
        { userId: target.id, kind, amount: nanos, reference, description: reason },
        now,
      );
      await recordAudit(
        store.db,
        {
          actorUserId: request.user!.id,
          action: nanos > 0 ? 'credits.grant' : 'credits.deduct',
          targetUserId: target.id,
          details: { amount_nanos: result.amount, requested_nanos: nanos, reason, reference },
        },
        now,
      );
      return {
        user_id: target.id,
        kind,
        amount: nanosToUsdNumber(result.amount),
        amount_nanos: result.amount,
        balance: nanosToUsdNumber(result.balance),
        balance_nanos: result.balance,
        reference,
      };
    },
  );

  app.get<{ Params: Static<typeof UserIdParamsSchema>; Querystring: { start_date?: string; end_date?: string } }>(
    '/admin/users/:user_id/usage',
    {
      schema: {
        summary: "Any account's usage: the same report as GET /api-account/user/usage",
        tags,
        params: UserIdParamsSchema,
        querystring: {
          type: 'object',
          properties: {
            start_date: { type: 'string', description: 'YYYY-MM-DD (UTC)' },
            end_date: { type: 'string', description: 'YYYY-MM-DD (UTC)' },
          },
          additionalProperties: false,
        },
        response: { 200: UsageReportSchema, ...errors },
      },
    },
    async (request) => {
      const target = await userOr404(request.params.user_id);
      return usageResponse(deps, target.id, request.query);
    },
  );

  typed(app).get(
    '/admin/users/:user_id/activity',
    {
      schema: {
        ...activityListSchema("Any account's requests: the same list as GET /api-account/user/activity", tags),
        params: UserIdParamsSchema,
      },
    },
    async (request, reply) => {
      const target = await userOr404(request.params.user_id);
      return activityListResponse(store, target.id, request.query, reply);
    },
  );

  app.get<{ Params: Static<typeof UserIdParamsSchema> & { request_id: string } }>(
    '/admin/users/:user_id/activity/:request_id',
    {
      schema: {
        ...activityDetailSchema("One of any account's requests, with its attempts", tags),
        params: Type.Object({ ...UserIdParamsSchema.properties, ...RequestIdParamsSchema.properties }),
      },
    },
    async (request) => {
      const target = await userOr404(request.params.user_id);
      return activityDetailResponse(store, target.id, request.params.request_id, deps.content);
    },
  );

  app.post<{ Params: Static<typeof OrderIdParamsSchema>; Body: Static<typeof ReasonBodySchema> | undefined }>(
    '/admin/orders/:order_id/refund',
    {
      schema: {
        summary: 'Refund a paid order: the money back at the payment provider, the credits off the balance',
        tags,
        params: OrderIdParamsSchema,
        body: ReasonBodySchema,
        response: { 200: OrderSchema, ...errors },
      },
    },
    async (request) => {
      if (!deps.billing)
        throw new NotFoundError(`No order with the id ${request.params.order_id}.`, 'order_not_found', 'order_id');
      const order = await deps.billing.refundByAdmin(request.params.order_id);
      await recordAudit(
        store.db,
        {
          actorUserId: request.user!.id,
          action: 'order.refund',
          targetUserId: order.user_id,
          details: {
            order_id: order.id,
            credit_nanos: Number(order.credit_nanos),
            ...(request.body?.reason ? { reason: request.body.reason } : {}),
          },
        },
        clock.now(),
      );
      return orderView(order);
    },
  );

  app.get<{ Querystring: Static<typeof AuditLogQuerySchema> }>(
    '/admin/audit-log',
    {
      schema: {
        summary: 'What administrators did, newest first',
        tags,
        querystring: AuditLogQuerySchema,
        response: { 200: AuditLogSchema, ...errors },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const offset = request.query.offset ?? 0;
      const { rows, total } = await listAudit(store.db, {
        limit,
        offset,
        action: request.query.action,
        targetUserId: request.query.target_user_id,
      });
      return {
        data: rows.map((row) => ({
          id: row.id,
          action: row.action,
          actor_user_id: row.actorUserId,
          actor_email: row.actorEmail,
          target_user_id: row.targetUserId,
          target_email: row.targetEmail,
          details: row.details,
          created_at: new Date(row.createdAt).toISOString(),
        })),
        total,
        limit,
        offset,
      };
    },
  );
}

/** A signed USD amount (JSON number or decimal string) → nano-USD; zero and >9 decimals are 400. */
function parseSignedUsd(amount: number | string): number {
  let nanos: number;
  try {
    nanos = decimalToUnits(amount, USD_DECIMALS);
  } catch {
    nanos = 0;
  }
  if (nanos === 0)
    throw new InvalidRequestError(
      'amount must be a non-zero USD amount with at most 9 decimals (negative deducts).',
      'amount',
      'invalid_amount',
    );
  return nanos;
}
