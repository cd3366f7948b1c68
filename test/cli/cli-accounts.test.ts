/**
 * `gateway keys list|revoke|rotate`, `credits balance|history`, `users show|list` (with roles) and
 * `users create --exists-ok`, run in-process on a SQLite store (each CLI start-up costs seconds).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { openRuntime, type Runtime } from '../../src/gateway-runtime.js';
import { runKeysCommand } from '../../src/cli/keys-command.js';
import { runCreditsCommand } from '../../src/cli/credits-command.js';
import { runUsersCommand } from '../../src/cli/users-command.js';
import { hashApiKey } from '../../src/keys/api-key-format.js';
import { findApiKeyByHash } from '../../src/keys/api-key-repository.js';
import { setRole } from '../../src/users/user-roles.js';
import { testConfigText } from '../helpers/test-gateway.js';

describe('gateway keys, credits and users commands', () => {
  let dir: string;
  let runtime: Runtime;
  const open = async () => {
    const { config } = loadConfig({
      env: { DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}` },
      text: testConfigText('http://127.0.0.1:9/v1'),
    });
    return openRuntime(config, {});
  };
  /** Runs one command and returns what it printed on stdout and as notes. */
  const keys = async (subcommand: string, args: string[]) => {
    let out = '';
    let note = '';
    await runKeysCommand(
      subcommand,
      args,
      open,
      (text) => (out += text),
      (text) => (note += text),
    );
    return { out, note };
  };
  const users = async (subcommand: string, args: string[]) => {
    let out = '';
    await runUsersCommand(subcommand, args, open, (text) => (out += text));
    return out;
  };
  const credits = async (subcommand: string, args: string[]) => {
    let out = '';
    await runCreditsCommand(
      subcommand,
      args,
      async () => {
        const opened = await open();
        return { store: opened.store, counters: null, close: () => opened.store.destroy() };
      },
      (text) => (out += text),
    );
    return out;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-cli-accounts-'));
    runtime = await open();
  });
  afterAll(async () => {
    await runtime?.store.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('users create --exists-ok reuses an existing account and says so; list and show give the role', async () => {
    expect(await users('create', ['--email', 'ada@example.com', '--password', 'ada-password-1'])).toMatch(
      /^created user ada@example.com \(id \S+\)\n$/,
    );
    await expect(users('create', ['--email', 'ada@example.com', '--password', 'other-password-2'])).rejects.toThrow(
      /already exists/,
    );
    expect(
      await users('create', ['--email', 'ada@example.com', '--password', 'other-password-2', '--exists-ok']),
    ).toMatch(/^user ada@example.com already exists \(id \S+, role user\); reusing it, password unchanged\n$/);
    await users('create', ['--email', 'bob@example.com', '--password', 'bob-password-1']);
    const bob = await runtime.store.db
      .selectFrom('user')
      .select('id')
      .where('email', '=', 'bob@example.com')
      .executeTakeFirstOrThrow();
    await setRole(runtime.store.db, bob.id, 'admin', Date.now());

    const listed = (await users('list', [])).trim().split('\n');
    expect(listed[0]).toMatch(/^EMAIL\s+ROLE\s+STATUS\s+KEYS\s+CREATED\s+ID$/);
    expect(listed[1]).toMatch(/^ada@example\.com\s+user\s+active\s+0\s+/);
    expect(listed[2]).toMatch(/^bob@example\.com\s+admin\s+active\s+0\s+/);

    const shown = await users('show', ['--email', 'bob@example.com']);
    expect(shown).toMatch(/^email: +bob@example\.com$/m);
    expect(shown).toMatch(/^role: +admin$/m);
    expect(shown).toMatch(/^status: +active$/m);
    expect(shown).toMatch(/^balance: +0 USD$/m);
    expect(shown).toMatch(new RegExp(`^id: +${bob.id}$`, 'm'));
    await expect(users('show', [])).rejects.toThrow('users show needs --email E (the account email)');
  });

  it('keys list shows live keys masked; revoke ends a key; rotate prints a new secret and keeps the old one for the grace', async () => {
    const first = (await keys('create', ['--email', 'ada@example.com', '--name', 'first'])).out.trim();
    const second = (await keys('create', ['--email', 'ada@example.com', '--name', 'second'])).out.trim();
    const listing = (await keys('list', ['--email', 'ada@example.com'])).out;
    const lines = listing.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+KEY\s+CREATED\s+LAST USED\s+EXPIRES$/);
    expect(lines.at(-1)).toBe('2 live keys of ada@example.com');
    expect(listing).not.toContain(first);
    expect(listing).toContain(`${first.slice(0, 10)}…${first.slice(-4)}`);
    const idOf = async (fullKey: string) => (await findApiKeyByHash(runtime.store.db, hashApiKey(fullKey)))!.id;

    const firstId = await idOf(first);
    const revoked = await keys('revoke', ['--id', firstId]);
    expect(revoked.out).toMatch(new RegExp(`^revoked key ${firstId} "first"`));
    expect((await findApiKeyByHash(runtime.store.db, hashApiKey(first)))?.revoked_at).not.toBeNull();
    await expect(keys('revoke', ['--id', firstId])).rejects.toThrow(`no live key with the id ${firstId}`);
    expect((await keys('list', ['--email', 'ada@example.com'])).out).toMatch(/1 live key of ada@example.com\n$/);

    const secondId = await idOf(second);
    const rotated = await keys('rotate', ['--id', secondId, '--grace-seconds', '60']);
    const renewed = rotated.out.trim();
    expect(renewed).toMatch(/^sk-gw-[0-9A-Za-z]{40}$/);
    expect(rotated.note).toMatch(/the old secret works until \d{4}-/);
    const row = await findApiKeyByHash(runtime.store.db, hashApiKey(renewed));
    expect(row?.id).toBe(secondId);
    expect(row?.previous_key_hash).toBe(hashApiKey(second));
    const graceLeft = Number(row?.previous_key_expires_at) - Date.now();
    expect(graceLeft).toBeGreaterThan(0);
    expect(graceLeft).toBeLessThanOrEqual(60_000);
    // Every hash changed went to the change feed, so running gateways drop their cached copies.
    const changed = (await runtime.store.db.selectFrom('key_changes').select('key_hash').execute()).map(
      (change) => change.key_hash,
    );
    expect(changed).toEqual(expect.arrayContaining([hashApiKey(first), hashApiKey(second), hashApiKey(renewed)]));
    await expect(keys('rotate', ['--id', secondId, '--grace-seconds', '-5'])).rejects.toThrow(
      'keys rotate: --grace-seconds must be a whole number from 0 to 2592000 (got "-5")',
    );
  });

  it('credits balance and history: the ledger newest first, with the balance', async () => {
    await credits('grant', ['--email', 'ada@example.com', '--amount', '5', '--note', 'welcome']);
    await credits('grant', ['--email', 'ada@example.com', '--amount', '2.25']);
    expect(await credits('balance', ['--email', 'ada@example.com'])).toBe('ada@example.com: 7.25 USD\n');
    const history = (await credits('history', ['--email', 'ada@example.com'])).trim().split('\n');
    expect(history[0]).toMatch(/^WHEN\s+KIND\s+USD\s+DESCRIPTION$/);
    expect(history[1]).toMatch(/^\d{4}-\S+\s+grant\s+\+2\.25\s+granted from the command line$/);
    expect(history[2]).toMatch(/^\d{4}-\S+\s+grant\s+\+5\s+welcome$/);
    expect(history[3]).toBe('ada@example.com: 2 entries shown (newest first, at most 20); balance 7.25 USD');
    const limited = await credits('history', ['--email', 'ada@example.com', '--limit', '1']);
    expect(limited).toMatch(/1 entry shown \(newest first, at most 1\)/);
    await expect(credits('history', ['--email', 'ada@example.com', '--limit', '0'])).rejects.toThrow(
      'credits history: --limit must be a whole number from 1 to 1000 (got "0")',
    );
  });
});
