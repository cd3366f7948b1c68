import { freePort } from '../helpers/free-port.js';
import { runGatewayCli, runGatewayCliSync } from '../helpers/gateway-cli.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { testConfigText } from '../helpers/test-gateway.js';
import { loadConfig } from '../../src/config/load-config.js';
import { openRuntime } from '../../src/gateway-runtime.js';
import { createUser } from '../../src/users/create-user.js';
import { createApiKey } from '../../src/keys/create-api-key.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import { getRole } from '../../src/users/user-roles.js';
import '../../src/users/admin-audit-log.js';

let upstream: MockUpstream;
let dir: string;
let closedPort: number;

/** Runs the CLI with no DATABASE_URL or GATEWAY_CONFIG in its environment: only the flags say where. */
function runCli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return runGatewayCliSync(args, { env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...extraEnv }, cwd: dir });
}

/** The same, without blocking this process: the fake upstream in it must answer doctor's probe. */
function runCliAsync(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return runGatewayCli(args, extraEnv, dir);
}

beforeAll(async () => {
  upstream = await startMockUpstream();
  dir = mkdtempSync(join(tmpdir(), 'gateway-cli-ops-'));
  closedPort = await freePort();
  // A second provider on a port nothing listens on: doctor must report it unreachable.
  writeFileSync(
    join(dir, 'ops.yaml'),
    testConfigText(upstream.url).replace(
      'models:',
      `  - id: gone\n    type: openai\n    base_url: http://127.0.0.1:${closedPort}/v1\nmodels:`,
    ),
  );
});

afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('gateway CLI: --database-url, --config, users, doctor', () => {
  const db = () => `sqlite:${join(dir, 'ops.db')}`;
  const where = () => ['--database-url', db(), '--config', join(dir, 'ops.yaml')];

  it('names the store and config it used when it fails, and honours the flags over defaults', () => {
    const missing = runCli(['keys', 'create', '--email', 'nobody@example.com', '--name', 'x', ...where()]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('gateway: no user with the email nobody@example.com');
    expect(missing.stderr).toContain(`  store:  sqlite:${join(dir, 'ops.db')}`);
    expect(missing.stderr).toContain(`  config: ${join(dir, 'ops.yaml')}`);

    const noFile = runCli(['users', 'list', '--config', join(dir, 'nope.yaml'), `--database-url=${db()}`]);
    expect(noFile.status).toBe(1);
    expect(noFile.stderr).toMatch(/GATEWAY_CONFIG points at .*nope\.yaml, which does not exist/);
    expect(noFile.stderr).toContain(`  store:  sqlite:${join(dir, 'ops.db')}`);
    expect(noFile.stderr).toContain(`  config: ${join(dir, 'nope.yaml')}`);

    const noValue = runCli(['users', 'list', '--database-url']);
    expect(noValue.status).toBe(2);
    expect(noValue.stderr).toMatch(/--database-url needs a value/);
  }, 120_000);

  it('lists, disables, enables and re-passwords users', async () => {
    // Accounts made in-process on the same store (fewer CLI start-ups: each costs seconds here).
    const { config } = loadConfig({ env: { DATABASE_URL: db() }, text: testConfigText(upstream.url) });
    const runtime = await openRuntime(config, {});
    const signIn = (email: string, password: string) =>
      runtime.auth.api.signInEmail({ body: { email, password } }).then(
        () => 'signed in',
        (error: { message?: string }) => error.message ?? 'refused',
      );
    try {
      await createUser(runtime.auth, runtime.store, { email: 'ana@example.com', password: 'first-password' });
      const bo = await createUser(runtime.auth, runtime.store, { email: 'bo@example.com', password: 'first-password' });
      await createApiKey(runtime.store, randomIdGenerator, Date.now(), { userId: bo.id, name: 'k' });

      const listed = runCli(['users', 'list', ...where()]);
      expect(listed.status).toBe(0);
      const lines = listed.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^EMAIL\s+ROLE\s+STATUS\s+KEYS\s+CREATED\s+ID$/);
      expect(lines[1]).toMatch(/^ana@example\.com\s+user\s+active\s+0\s+\d{4}-\d\d-\d\dT/);
      expect(lines[2]).toMatch(/^bo@example\.com\s+user\s+active\s+1\s+/);
      expect(lines[3]).toBe('2 users');

      const disabled = runCli(['users', 'disable', '--email', 'bo@example.com', ...where()]);
      expect(disabled.stdout).toMatch(/disabled bo@example.com: sessions ended, 1 API key\(s\) revoked/);
      const keys = await runtime.store.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('user_id', '=', bo.id)
        .execute();
      expect(keys.every((key) => key.revoked_at !== null)).toBe(true);
      // Written to the key change feed, so running gateways drop the key from their caches.
      const changes = await runtime.store.db.selectFrom('key_changes').select('key_hash').execute();
      const hashes = await runtime.store.db
        .selectFrom('api_keys')
        .select('key_hash')
        .where('user_id', '=', bo.id)
        .execute();
      expect(changes.filter((change) => change.key_hash === hashes[0].key_hash)).toHaveLength(2);
      // Sign-in is refused while disabled, through the same auth the server uses.
      expect(await signIn('bo@example.com', 'first-password')).toMatch(/disabled/);
      expect(await signIn('ana@example.com', 'first-password')).toBe('signed in');

      expect(runCli(['users', 'enable', '--email', 'bo@example.com', ...where()]).status).toBe(0);
      expect(await signIn('bo@example.com', 'first-password')).toBe('signed in');

      const promoted = runCli(['users', 'set-role', '--email', 'bo@example.com', '--role', 'admin', ...where()]);
      expect(promoted.stdout).toMatch(/bo@example.com now has the role admin/);
      expect(await getRole(runtime.store.db, bo.id)).toBe('admin');
      const badRole = runCli(['users', 'set-role', '--email', 'bo@example.com', '--role', 'owner', ...where()]);
      expect(badRole.status).toBe(2);
      expect(badRole.stderr).toMatch(/--role \(admin or user\)/);
      const audit = await runtime.store.db.selectFrom('admin_audit_log').selectAll().orderBy('id').execute();
      expect(audit.map((row) => [row.action, row.actor_user_id, row.target_user_id])).toEqual([
        ['user.disable', null, bo.id],
        ['user.enable', null, bo.id],
        ['user.set_role', null, bo.id],
      ]);

      const reset = runCli(['users', 'set-password', '--email', 'ana@example.com', ...where()]);
      expect(reset.status).toBe(0);
      const generated = reset.stdout.match(/password \(shown once\): (\S+)/)![1];
      expect(await signIn('ana@example.com', 'first-password')).not.toBe('signed in');
      expect(await signIn('ana@example.com', generated)).toBe('signed in');
    } finally {
      await runtime.store.destroy();
    }
  }, 180_000);

  it('doctor prints a table of config, store, migrations, Redis and each provider, failing on the unreachable one', async () => {
    const report = await runCliAsync(['doctor', '--timeout', '2000', ...where()], {
      REDIS_URL: `redis://127.0.0.1:${closedPort}`,
    });
    expect(report.status).toBe(1);
    const rows = Object.fromEntries(
      report.stdout
        .trim()
        .split('\n')
        .slice(1, -1)
        .map((line) => {
          const [check, status, ...detail] = line.split(/\s{2,}/);
          return [check, { status, detail: detail.join(' ') }];
        }),
    );
    expect(report.stdout.split('\n')[0]).toMatch(/^CHECK\s+STATUS\s+DETAIL$/);
    expect(rows.config).toEqual({ status: 'ok', detail: `${join(dir, 'ops.yaml')}: 2 providers, 1 models` });
    expect(rows.store).toEqual({ status: 'ok', detail: `sqlite:${join(dir, 'ops.db')}` });
    expect(rows.migrations).toEqual({ status: 'ok', detail: 'all applied' });
    expect(rows.redis.status).toBe('FAIL');
    expect(rows['provider mock']).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^reachable and authenticated: HTTP 200 from GET \S+\/v1\/models, 1 model in /),
    });
    expect(rows['provider gone']).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('ECONNREFUSED') });
    expect(report.stdout.trim().split('\n').at(-1)).toBe('some checks failed');

    // A store nobody migrated: doctor says so and changes nothing.
    const fresh = runCli([
      'doctor',
      '--database-url',
      `sqlite:${join(dir, 'fresh.db')}`,
      '--config',
      join(dir, 'ops.yaml'),
    ]);
    expect(fresh.status).toBe(1);
    expect(fresh.stdout).toMatch(/migrations\s+FAIL\s+.*gateway_migrations/);
    expect(fresh.stdout).toMatch(/redis\s+skip\s+REDIS_URL is not set/);
  }, 120_000);
});
