import { createRequire } from 'node:module';
import type Nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { MailSettings, SmtpSettings } from './mail-settings.js';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends the few messages the gateway writes (password-reset links). Pluggable: the log mailer for a
 * local install, SMTP for production, and whatever a test injects to capture them.
 */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
  close?(): void;
}

/** Writes the message, link included, to the log: enough to reset a password on a local install. */
export function logMailer(logger: Logger): Mailer {
  return {
    async send(mail) {
      logger.info(
        { mail: { to: mail.to, subject: mail.subject } },
        `mail (mail.transport: log; configure mail.transport: smtp to send it):\n${mail.text}`,
      );
    },
  };
}

/** SMTP through nodemailer, with timeouts so a dead server fails instead of hanging. */
function smtpMailer(settings: SmtpSettings, from: string): Mailer {
  // Loaded only when SMTP is configured: most gateways never send mail through it.
  const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
  const timeouts = {
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
  };
  const transport = settings.url
    ? nodemailer.createTransport({ url: settings.url, ...timeouts })
    : nodemailer.createTransport({
        host: settings.host,
        port: settings.port,
        secure: settings.secure,
        auth: settings.user ? { user: settings.user, pass: settings.password ?? '' } : undefined,
        ...timeouts,
      });
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close() {
      transport.close();
    },
  };
}

export function createMailer(settings: MailSettings, logger: Logger): Mailer {
  return settings.transport === 'smtp' && settings.smtp ? smtpMailer(settings.smtp, settings.from) : logMailer(logger);
}
