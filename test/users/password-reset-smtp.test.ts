import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../../src/config/load-config.js';
import { createProviderRegistry } from '../../src/providers/provider-registry.js';
import { startGateway, type StartedGateway } from '../../src/gateway-runtime.js';
import { createLogger } from '../../src/shared/logger.js';
import { createUser } from '../../src/users/create-user.js';
import { logMailer } from '../../src/users/mailer.js';
import { testConfigText } from '../helpers/test-gateway.js';
import { requestJson } from '../helpers/account-client.js';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A real SMTP server on a free local port (smtp-server, by nodemailer's authors) that keeps every message. */
async function startSmtpServer(): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((address) => address.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Quoted-printable soft line breaks and escapes undone, enough to read a link out of a text mail. */
function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe('password reset through the gateway as served, with mail.transport: smtp', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let gateway: StartedGateway;
  let dir: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    dir = mkdtempSync(join(tmpdir(), 'gateway-smtp-'));
    const { config } = loadConfig({
      text: `${testConfigText('http://127.0.0.1:9')}
mail:
  transport: smtp
  from: LLM Gateway <no-reply@gateway.test>
  smtp: { host: 127.0.0.1, port: ${smtp.port}, timeout_ms: 5000 }
  password_reset_ttl_minutes: 30
`,
      env: { DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`, PORT: '0' },
      knownProviderTypes: [...createProviderRegistry().keys()],
    });
    gateway = await startGateway(config, createLogger('warn'), {}, {});
    await createUser(gateway.runtime.auth, gateway.runtime.store, {
      email: 'mia@example.com',
      password: 'plum-orbit-42-lantern',
    });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the link by SMTP; the link resets the password', async () => {
    const asked = await requestJson(gateway.url, 'POST', '/api-account/password-reset', { email: 'Mia@Example.com' });
    expect(asked.status).toBe(200);
    for (let attempt = 0; attempt < 100 && smtp.received.length === 0; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(smtp.received).toHaveLength(1);
    const message = smtp.received[0];
    expect(message.from).toBe('no-reply@gateway.test');
    expect(message.to).toEqual(['mia@example.com']);
    const text = decodeQuotedPrintable(message.data);
    expect(text).toMatch(/^Subject: Reset your LLM Gateway password/m);
    expect(text).toContain('within 30 minutes');
    const link = new URL(/(http\S+\/reset-password\?token=\S+)/.exec(text)![1]);
    const done = await requestJson(gateway.url, 'POST', '/api-account/password-reset/confirm', {
      token: link.searchParams.get('token'),
      new_password: 'saffron-glacier-31-otter',
    });
    expect(done.status).toBe(200);
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: 'mia@example.com',
      password: 'saffron-glacier-31-otter',
    });
    expect(signIn.status).toBe(200);
  });
});

describe('the default mailer (mail.transport: log)', () => {
  it('writes the message with its link to the log, for a local install', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    await logMailer(createLogger('info', sink)).send({
      to: 'ann@example.com',
      subject: 'Reset your LLM Gateway password',
      text: 'Open http://127.0.0.1:8080/reset-password?token=abc',
    });
    const entry = JSON.parse(lines[0]) as { msg: string; mail: { to: string } };
    expect(entry.mail.to).toBe('ann@example.com');
    expect(entry.msg).toContain('http://127.0.0.1:8080/reset-password?token=abc');
  });
});
