import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson } from '../helpers/account-client.js';

/**
 * Issue 28, item 6: a console opened at `http://localhost:PORT` instead of `127.0.0.1` could not
 * sign in ("Invalid origin": better-auth trusted only the public URL). With no public_url set, any
 * loopback origin on the gateway's own port is trusted now (localhost, 127.0.0.1, [::1]); with one
 * set, the refusal says which address to open.
 */
const PASSWORD = 'plum-orbit-42-lantern';

/** A browser that has been here before carries some cookie: better-auth then checks the Origin. */
const signInFrom = (gateway: TestGateway, origin: string) =>
  requestJson(
    gateway.url,
    'POST',
    '/api-account/auth/sign-in/email',
    { email: gateway.email, password: PASSWORD },
    { origin, cookie: 'console-theme=dark' },
  );

describe('loopback origins with no public_url set', () => {
  let gateway: TestGateway;
  let port: number;

  beforeAll(async () => {
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9') });
    port = Number(new URL(gateway.url).port);
    expect(gateway.config.server.publicUrl).not.toContain(`:${port}`);
  });
  afterAll(async () => gateway?.close());

  it('signs in from localhost, 127.0.0.1 and [::1] on the gateway’s port, and writes with the cookie', async () => {
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
      const signIn = await signInFrom(gateway, origin);
      expect(signIn.status, `${origin}: ${signIn.text}`).toBe(200);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
      expect(cookie).toMatch(/session_token=/);
      // The request goes to 127.0.0.1 while the page is at localhost: not same-origin, still trusted.
      const created = await requestJson(
        gateway.url,
        'POST',
        '/api-account/user/api-keys',
        { name: `from ${origin}` },
        { origin, cookie },
      );
      expect(created.status, `${origin}: ${created.text}`).toBe(201);
    }
  });

  it('still refuses another port on this machine and foreign origins', async () => {
    for (const origin of [`http://localhost:${port + 1}`, 'http://localhost', 'https://evil.example', 'null']) {
      const refused = await signInFrom(gateway, origin);
      expect(refused.status, origin).toBe(403);
      expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'invalid_origin' });
    }
  });
});

describe('loopback origins with public_url set', () => {
  let gateway: TestGateway;
  let port: number;

  beforeAll(async () => {
    gateway = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9').replace(
        'server:\n',
        'server:\n  public_url: https://gateway.example.com\n',
      ),
    });
    port = Number(new URL(gateway.url).port);
    expect(gateway.config.server.publicUrl).toBe('https://gateway.example.com');
  });
  afterAll(async () => gateway?.close());

  it('refuses another address with an error that says which address to open', async () => {
    const refused = await signInFrom(gateway, `http://localhost:${port}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'invalid_origin' });
    expect(refused.body.error.message).toContain(`http://localhost:${port}`);
    expect(refused.body.error.message).toContain('Open the console at https://gateway.example.com');
    expect((await signInFrom(gateway, 'https://gateway.example.com')).status).toBe(200);
  });
});
