import { Type } from '@sinclair/typebox';
import { limitParameter, offsetParameter } from '../paging-schemas.js';

export const UserIdParamsSchema = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 200 }) });
export const OrderIdParamsSchema = Type.Object({ order_id: Type.String({ minLength: 1, maxLength: 200 }) });

const Limit = limitParameter(200, 50);
const Offset = offsetParameter();

export const UsersQuerySchema = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the email or the name, any case' })),
    limit: Limit,
    offset: Offset,
  },
  { additionalProperties: false },
);

export const AuditLogQuerySchema = Type.Object(
  {
    action: Type.Optional(Type.String({ maxLength: 100, description: 'Only this action, e.g. `credits.grant`' })),
    target_user_id: Type.Optional(Type.String({ maxLength: 200, description: 'Only actions on this account' })),
    limit: Limit,
    offset: Offset,
  },
  { additionalProperties: false },
);

export const AdminUserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: Type.Union([Type.Literal('admin'), Type.Literal('user')]),
    disabled: Type.Boolean(),
    created_at: Type.String({ description: 'ISO 8601 UTC' }),
    active_keys: Type.Integer({ description: 'API keys not revoked' }),
    balance: Type.Number({ description: 'Credit balance, USD' }),
    balance_nanos: Type.Integer({ description: 'The same balance in exact nano-USD' }),
  },
  { description: 'An account as administrators see it' },
);

export const AdminUserListSchema = Type.Object({
  data: Type.Array(AdminUserSchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const ReasonBodySchema = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 500, description: 'Recorded in the audit log' })) },
  { additionalProperties: false },
);

export const RoleBodySchema = Type.Object(
  { role: Type.Unsafe<'admin' | 'user'>({ type: 'string', enum: ['admin', 'user'] }) },
  { additionalProperties: false },
);

export const CreditsBodySchema = Type.Object(
  {
    amount: Type.Union([Type.Number(), Type.String({ maxLength: 40 })], {
      description: 'USD, up to 9 decimals: positive grants credits, negative deducts them (never below a zero balance)',
    }),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why; kept in the ledger and the audit log' }),
  },
  { additionalProperties: false },
);

export const CreditsResultSchema = Type.Object({
  user_id: Type.String(),
  kind: Type.Union([Type.Literal('grant'), Type.Literal('adjustment')]),
  amount: Type.Number({ description: 'USD actually moved (a deduction is cut to the balance)' }),
  amount_nanos: Type.Integer(),
  balance: Type.Number(),
  balance_nanos: Type.Integer(),
  reference: Type.String({ description: 'The ledger entry’s reference' }),
});

const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  action: Type.String(),
  actor_user_id: Type.Union([Type.String(), Type.Null()], { description: 'Null: the command line' }),
  actor_email: Type.Union([Type.String(), Type.Null()]),
  target_user_id: Type.Union([Type.String(), Type.Null()]),
  target_email: Type.Union([Type.String(), Type.Null()], { description: 'Null once the account is deleted' }),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
});

export const AuditLogSchema = Type.Object({
  data: Type.Array(AuditEntrySchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
