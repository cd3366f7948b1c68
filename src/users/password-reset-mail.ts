import type { OutgoingMail } from './mailer.js';

/** The page the link opens: the gateway's own form (http/password-reset-page.ts), then the API. */
function passwordResetLink(baseUrl: string, token: string): string {
  return `${baseUrl}/reset-password?token=${encodeURIComponent(token)}`;
}

export function passwordResetMail(to: string, baseUrl: string, token: string, ttlSeconds: number): OutgoingMail {
  const minutes = Math.round(ttlSeconds / 60);
  return {
    to,
    subject: 'Reset your LLM Gateway password',
    text: [
      'Someone asked to reset the password of your LLM Gateway account.',
      '',
      `Open this link within ${minutes} minutes to choose a new password:`,
      passwordResetLink(baseUrl, token),
      '',
      'The link works once. Choosing a new password signs you out everywhere.',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ].join('\n'),
  };
}
