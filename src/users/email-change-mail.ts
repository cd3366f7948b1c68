import type { OutgoingMail } from './mailer.js';

/** Sent to the new address: following the link is what moves the account to it. */
export function emailChangeMail(to: string, url: string): OutgoingMail {
  return {
    to,
    subject: 'Confirm your new LLM Gateway email address',
    text: [
      'Someone asked to move an LLM Gateway account to this email address.',
      '',
      'Open this link to confirm; until then the account keeps its old address:',
      url,
      '',
      'If you did not ask for this, ignore this message.',
    ].join('\n'),
  };
}
