import { Type, type Static } from '@sinclair/typebox';
import { parseConfigSection, sectionError } from '../config/config-section.js';

/** The `mail:` section of gateway.config.yaml: how the gateway sends password-reset links. */
const MailSectionSchema = Type.Object(
  {
    /** `log` (default): the message, link included, is written to the gateway's log. `smtp`: sent. */
    transport: Type.Optional(Type.Union([Type.Literal('log'), Type.Literal('smtp')])),
    /** The From address, e.g. `LLM Gateway <no-reply@example.com>`. */
    from: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
    smtp: Type.Optional(
      Type.Object(
        {
          /** `smtp://user:password@host:587` or `smtps://…:465`; instead of the fields below. */
          url: Type.Optional(Type.String({ pattern: '^smtps?://' })),
          host: Type.Optional(Type.String({ minLength: 1 })),
          port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
          /** TLS from the first byte (port 465); otherwise STARTTLS is used when the server offers it. */
          secure: Type.Optional(Type.Boolean()),
          user: Type.Optional(Type.String()),
          password: Type.Optional(Type.String()),
          /** Give up on a server that does not answer within this (connect, greeting, each command). */
          timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** How long a password-reset link works. */
    password_reset_ttl_minutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 7 * 24 * 60 })),
  },
  { additionalProperties: false },
);
type MailSection = Static<typeof MailSectionSchema>;

export interface SmtpSettings {
  url?: string;
  host?: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
  timeoutMs: number;
}

export interface MailSettings {
  transport: 'log' | 'smtp';
  from: string;
  smtp: SmtpSettings | null;
  passwordResetTtlSeconds: number;
}

const DEFAULT_MAIL_FROM = 'LLM Gateway <no-reply@localhost>';

export function parseMailSettings(section: Record<string, unknown> | undefined): MailSettings {
  const input: MailSection = parseConfigSection('mail', section, MailSectionSchema);
  const transport = input.transport ?? 'log';
  const smtp = input.smtp;
  if (transport === 'smtp' && !smtp?.url && !smtp?.host)
    throw sectionError(section, 'mail.smtp', 'needs url or host when mail.transport is smtp');
  return {
    transport,
    from: input.from ?? DEFAULT_MAIL_FROM,
    smtp:
      transport === 'smtp' && smtp
        ? {
            url: smtp.url,
            host: smtp.host,
            port: smtp.port ?? (smtp.secure ? 465 : 587),
            secure: smtp.secure ?? false,
            user: smtp.user || undefined,
            password: smtp.password || undefined,
            timeoutMs: smtp.timeout_ms ?? 10_000,
          }
        : null,
    passwordResetTtlSeconds: (input.password_reset_ttl_minutes ?? 60) * 60,
  };
}
