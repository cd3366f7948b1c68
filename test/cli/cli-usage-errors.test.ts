/**
 * Usage errors of the gateway command: exit code 2, the problem named with the flag and the form
 * its value takes, first and in view (not buried above the whole help).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFlags, requireFlags } from '../../src/cli/cli-arguments.js';
import { UsageError } from '../../src/cli/cli-context.js';
import { runGatewayCli } from '../helpers/gateway-cli.js';

describe('parseFlags and requireFlags', () => {
  const specs = { email: { form: 'E' }, amount: { form: 'USD' }, force: { type: 'boolean' as const } };

  it('joins a negative number to its flag instead of Node\'s "argument is ambiguous" (regression)', () => {
    expect(parseFlags('credits grant', ['--amount', '-3'], specs).values.amount).toBe('-3');
    expect(parseFlags('credits grant', ['--amount', '-0.5'], specs).values.amount).toBe('-0.5');
  });

  it.each([
    [['--email'], /^credits grant: --email needs a value: --email E/],
    [['--email', '--amount', '1'], /^credits grant: --email needs a value: --email E/],
    [['--colour', 'red'], /^credits grant: unknown flag --colour; it takes --email E, --amount USD, --force$/],
    [['stray'], /^credits grant: unexpected argument "stray"/],
    [['--force=yes'], /^credits grant: --force takes no value/],
  ])('%j is a usage error naming the flag', (args, message) => {
    let caught: unknown;
    try {
      parseFlags('credits grant', args, specs);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as Error).message).toMatch(message);
    expect((caught as UsageError).command).toBe('credits grant');
  });

  it('names every missing flag with its form', () => {
    const parsed = parseFlags('keys create', [], specs);
    expect(() => requireFlags('keys create', parsed, ['email', 'amount'], specs)).toThrow(
      'keys create needs --email E and --amount USD',
    );
  });
});

describe('the gateway command: exit code 2 and a visible reason for usage errors', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-cli-usage-'));
    env = { DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}` };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('`gateway` with no command exits 2 with the help, the reason first and last (regression: exited 0)', async () => {
    const run = await runGatewayCli([], env, dir);
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe('gateway: no command given');
    expect(lines.at(-1)).toBe('gateway: no command given');
    expect(run.stderr).toContain('gateway keys revoke --id KEY_ID');
    expect(run.stdout).toBe('');
  }, 60_000);

  it('`gateway help` prints the help on stdout and exits 0', async () => {
    const run = await runGatewayCli(['help'], env, dir);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('gateway credits history --email E');
  }, 60_000);

  it('`credits grant --amount -3` names the flag and the form (regression: Node\'s "argument is ambiguous")', async () => {
    const run = await runGatewayCli(['credits', 'grant', '--email', 'a@example.com', '--amount', '-3'], env, dir);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toMatch(/ambiguous/);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      'gateway: credits grant: --amount must be a positive USD amount with at most 9 decimals, e.g. 10 or 2.50 (got "-3")',
    );
    // Only that command's usage follows, so the reason stays in view.
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(run.stderr).toContain('gateway credits grant --email E --amount USD');
  }, 60_000);

  it('a missing flag is the first line, above a short usage (regression: one line above 25 lines of help)', async () => {
    const run = await runGatewayCli(['keys', 'create', '--email', 'a@example.com'], env, dir);
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe('gateway: keys create needs --name N (a label for the key)');
    expect(lines.length).toBeLessThanOrEqual(8);
  }, 60_000);

  it('an unknown command or flag exits 2; a failure that is not about usage exits 1', async () => {
    const unknown = await runGatewayCli(['keys', 'destroy'], env, dir);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe(
      'gateway: unknown command: keys destroy (it is one of: create, list, revoke, rotate)',
    );
    const flag = await runGatewayCli(['users', 'list', '--colour'], env, dir);
    expect(flag.status).toBe(2);
    expect(flag.stderr.split('\n')[0]).toBe('gateway: users list: unknown flag --colour; it takes no flags');
    const failed = await runGatewayCli(['keys', 'list', '--email', 'nobody@example.com'], env, dir);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/^gateway: no user with the email nobody@example.com/);
  }, 120_000);
});
