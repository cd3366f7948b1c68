import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { setRole } from '../../src/users/user-roles.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson, type JsonResponse } from '../helpers/account-client.js';

type Operation = {
  security?: Array<Record<string, unknown>>;
  responses: Record<string, { content?: { 'application/json'?: { schema?: unknown } } }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

/**
 * The OpenAPI document describes sign-up, sign-in, sign-out and every self-service and admin
 * route, with the error envelope; and what those routes answer conforms to what it says.
 */
describe('the account API in the OpenAPI document', () => {
  let gateway: TestGateway;
  let document: Document;
  let ajv: Ajv;

  /** Checks an answer against the document's schema for that operation and status. */
  const conforms = (path: string, method: string, response: JsonResponse) => {
    const pointer = `doc#/paths/${path.replace(/\//g, '~1')}/${method}/responses/${response.status}/content/application~1json/schema`;
    const validate = ajv.compile({ $ref: pointer });
    const valid = validate(response.body);
    expect(valid, `${method.toUpperCase()} ${path} ${response.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  };

  beforeAll(async () => {
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9') });
    document = (await requestJson(gateway.url, 'GET', '/openapi.json')).body as Document;
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document as object, 'doc');
  });
  afterAll(async () => gateway?.close());

  it('describes better-auth’s sign-up, sign-in, sign-out and get-session, and they answer what it says', async () => {
    for (const [path, method] of [
      ['/api-account/auth/sign-up/email', 'post'],
      ['/api-account/auth/sign-in/email', 'post'],
      ['/api-account/auth/sign-out', 'post'],
      ['/api-account/auth/get-session', 'get'],
    ] as const) {
      const operation = document.paths[path]?.[method];
      expect(operation, path).toBeDefined();
      expect(operation.responses['200'].content?.['application/json']?.schema).toBeDefined();
    }
    const email = `openapi-${Date.now()}@example.com`;
    const signUp = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-up/email', {
      email,
      password: 'plum-orbit-42-lantern',
    });
    conforms('/api-account/auth/sign-up/email', 'post', signUp);
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email,
      password: 'plum-orbit-42-lantern',
    });
    conforms('/api-account/auth/sign-in/email', 'post', signIn);
    const wrong = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email,
      password: 'not-the-password-1',
    });
    expect(wrong.status).toBe(401);
    conforms('/api-account/auth/sign-in/email', 'post', wrong);
    const headers = { authorization: `Bearer ${signIn.body.token}` };
    conforms(
      '/api-account/auth/get-session',
      'get',
      await requestJson(gateway.url, 'GET', '/api-account/auth/get-session', undefined, headers),
    );
    conforms(
      '/api-account/auth/sign-out',
      'post',
      await requestJson(gateway.url, 'POST', '/api-account/auth/sign-out', {}, headers),
    );
    conforms(
      '/api-account/auth/get-session',
      'get',
      await requestJson(gateway.url, 'GET', '/api-account/auth/get-session', undefined, headers),
    );
  });

  it('gives every self-service and admin route a response schema, the session scheme and the error envelope', () => {
    const ours = Object.entries(document.paths).filter(([path]) =>
      /^\/api-account\/(user\/(me|password|sessions)|password-reset|admin\/)/.test(path),
    );
    expect(ours.length).toBeGreaterThanOrEqual(14);
    const envelope = JSON.stringify(document.components).includes('"error"');
    expect(envelope).toBe(true);
    for (const [path, methods] of ours) {
      for (const [method, operation] of Object.entries(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(operation.responses['200']?.content?.['application/json']?.schema, where).toBeDefined();
        const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
        expect(errors.length, where).toBeGreaterThan(0);
        for (const [status, response] of errors) {
          const schema = response.content?.['application/json']?.schema as { $ref?: string } | undefined;
          expect(schema?.$ref, `${where} ${status}`).toMatch(/^#\/components\/schemas\//);
        }
        if (!path.startsWith('/api-account/password-reset')) {
          expect(operation.security, where).toEqual([{ sessionAuth: [] }]);
          expect(operation.responses['401'], where).toBeDefined();
        }
      }
    }
  });

  it('answers what the document says on the self-service and admin routes', async () => {
    const user = await AccountClient.signUp(gateway.url, undefined, 'plum-orbit-42-lantern');
    const me = await user.request('GET', '/api-account/user/me');
    conforms('/api-account/user/me', 'get', me);
    conforms('/api-account/user/me', 'patch', await user.request('PATCH', '/api-account/user/me', { name: 'Ann' }));
    conforms('/api-account/user/sessions', 'get', await user.request('GET', '/api-account/user/sessions'));
    conforms('/api-account/user/usage', 'get', await user.request('GET', '/api-account/user/usage'));
    conforms('/api-account/user/balance', 'get', await user.request('GET', '/api-account/user/balance'));
    conforms(
      '/api-account/user/password',
      'post',
      await user.request('POST', '/api-account/user/password', {
        current_password: 'wrong-password-1',
        new_password: 'violet-harbor-77-ember',
      }),
    );
    conforms(
      '/api-account/password-reset',
      'post',
      await requestJson(gateway.url, 'POST', '/api-account/password-reset', { email: 'nobody@example.com' }),
    );
    await setRole(gateway.testStore.store.db, me.body.id, 'admin', Date.now());
    conforms('/api-account/admin/users', 'get', await user.request('GET', '/api-account/admin/users'));
    conforms(
      '/api-account/admin/users/{user_id}/credits',
      'post',
      await user.request('POST', `/api-account/admin/users/${me.body.id}/credits`, { amount: 1, reason: 'doc' }),
    );
    conforms('/api-account/admin/audit-log', 'get', await user.request('GET', '/api-account/admin/audit-log'));
    conforms(
      '/api-account/admin/users/{user_id}/usage',
      'get',
      await user.request('GET', `/api-account/admin/users/${me.body.id}/usage`),
    );
  });
});
