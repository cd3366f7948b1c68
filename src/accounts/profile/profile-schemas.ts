import { Type } from '@sinclair/typebox';

export const MeSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: Type.Union([Type.Literal('admin'), Type.Literal('user')]),
    created_at: Type.String({ description: 'ISO 8601 UTC' }),
  },
  { description: 'The signed-in account' },
);

export const ProfileUpdateSchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200, description: 'Shown in the console and on invoices' }) },
  { additionalProperties: false },
);

export const ChangePasswordSchema = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 256 }),
    new_password: Type.String({
      maxLength: 256,
      description: 'At least 10 characters, not one of the most common passwords',
    }),
    revoke_other_sessions: Type.Optional(
      Type.Boolean({
        description:
          'Also end every other session (default false). The current session is replaced too: the answer carries its new token.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChangePasswordResultSchema = Type.Object({
  status: Type.Literal('changed'),
  token: Type.Union([Type.String(), Type.Null()], {
    description: 'The new session token when revoke_other_sessions was true (the old one no longer works), else null',
  }),
});

export const DeleteAccountSchema = Type.Object(
  { password: Type.String({ minLength: 1, maxLength: 256, description: 'The current password, to confirm' }) },
  { additionalProperties: false },
);

export const DeleteAccountResultSchema = Type.Object({
  deleted: Type.Literal(true),
  revoked_keys: Type.Integer({ description: 'API keys that stopped working' }),
});

const SessionSchema = Type.Object({
  id: Type.String(),
  current: Type.Boolean({ description: 'The session this request was made with' }),
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.String(),
  ip_address: Type.Union([Type.String(), Type.Null()]),
  user_agent: Type.Union([Type.String(), Type.Null()]),
});

export const SessionListSchema = Type.Object({ data: Type.Array(SessionSchema) });
export const SessionIdParamsSchema = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 200 }) });
export const RevokedSessionsSchema = Type.Object({ revoked: Type.Integer() });

export const PasswordResetRequestSchema = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 320 }) },
  { additionalProperties: false },
);

export const PasswordResetRequestedSchema = Type.Object({
  status: Type.Literal('requested'),
  message: Type.String(),
});

export const PasswordResetConfirmSchema = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'From the emailed link' }),
    new_password: Type.String({
      maxLength: 256,
      description: 'At least 10 characters, not one of the most common passwords',
    }),
  },
  { additionalProperties: false },
);

export const PasswordResetDoneSchema = Type.Object({ status: Type.Literal('reset') });

export const ChangeEmailSchema = Type.Object(
  {
    new_email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 256, description: 'The current password, to confirm' }),
  },
  { additionalProperties: false },
);

export const ChangeEmailRequestedSchema = Type.Object({
  status: Type.Literal('confirmation_sent'),
  message: Type.String(),
});
