import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { runGatewayCliSync, spawnGatewayCli } from '../helpers/gateway-cli.js';
import { testConfigText } from '../helpers/test-gateway.js';

let upstream: MockUpstream;
let dir: string;
let env: NodeJS.ProcessEnv;

function runCli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return runGatewayCliSync(args, { env: { ...env, ...extraEnv }, cwd: dir });
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  return new Promise((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; output so far:\n${seen}`)),
      timeoutMs,
    );
    const onData = (data: Buffer) => {
      seen += data.toString();
      const match = seen.match(pattern);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolvePromise(match);
      }
    };
    child.stdout?.on('data', onData);
  });
}

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
  dir = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
  writeFileSync(join(dir, 'gateway.config.yaml'), testConfigText(upstream.url));
  env = {
    PATH: process.env.PATH,
    DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
    PORT: '0',
    LOG_LEVEL: 'warn',
    GATEWAY_ADMIN_EMAIL: 'root@example.com',
    GATEWAY_ADMIN_PASSWORD: 'root-password-1',
  };
});

afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the gateway CLI', () => {
  it('migrates, creates a user and a key, and refuses bad input with a one-line reason', () => {
    const migrate = runCli(['migrate']);
    expect(migrate.status).toBe(0);
    expect(migrate.stdout).toMatch(/0001-api-keys/);
    expect(runCli(['migrate']).stdout).toMatch(/up to date/);

    const user = runCli(['users', 'create', '--email', 'dev@example.com', '--password', 'dev-password-1']);
    expect(user.status).toBe(0);
    expect(user.stdout).toMatch(/created user dev@example.com/);

    const duplicate = runCli(['users', 'create', '--email', 'dev@example.com', '--password', 'dev-password-1']);
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);

    const key = runCli(['keys', 'create', '--email', 'dev@example.com', '--name', 'ci']);
    expect(key.status).toBe(0);
    expect(key.stdout.trim()).toMatch(/^sk-gw-[0-9A-Za-z]{40}$/);

    const unknownUser = runCli(['keys', 'create', '--email', 'ghost@example.com', '--name', 'x']);
    expect(unknownUser.status).toBe(1);
    // One line of reason, then the store and config it was looked for in.
    expect(unknownUser.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^gateway: no user with the email ghost@example.com/),
      `  store:  sqlite:${join(dir, 'gateway.db')}`,
      `  config: ${join(dir, 'gateway.config.yaml')}`,
    ]);

    const badConfig = runCli(['migrate'], { GATEWAY_CONFIG: join(dir, 'missing.yaml') });
    expect(badConfig.status).toBe(1);
    expect(badConfig.stderr).toMatch(/does not exist/);

    expect(runCli(['frobnicate']).status).toBe(2);
  }, 180_000);

  it('serves, and on SIGTERM lets an open stream finish, then exits 0', async () => {
    const keyOutput = runCli(['keys', 'create', '--email', 'dev@example.com', '--name', 'serve']);
    const apiKey = keyOutput.stdout.trim();
    const child = spawnGatewayCli(['serve'], { env, cwd: dir });
    const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    try {
      const [, url] = await waitForLine(child, /gateway listening on (http:\/\/\S+)/);
      // Charging is on by default: no credits, no answer, and the refusal says how to add them.
      const unpaid = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(unpaid.status).toBe(402);
      expect((await unpaid.json()).error).toMatchObject({
        code: 'insufficient_credits',
        message: expect.stringContaining('gateway credits grant'),
      });
      // A grant from another process (the CLI) is seen by the running gateway at once.
      expect(runCli(['credits', 'grant', '--email', 'dev@example.com', '--amount', '5']).status).toBe(0);
      const client = new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 });
      const whole = await client.chat.completions.create({
        model: 'test/chat',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(whole.choices[0].message.content).toBeTruthy();

      upstream.setScenario({ chunkCount: 20, chunkGapMs: 40 });
      const stream = await client.chat.completions.create({
        model: 'test/chat',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      let chunks = 0;
      for await (const chunk of stream) {
        if (chunks++ === 1) child.kill('SIGTERM');
        void chunk;
      }
      expect(chunks).toBe(22);
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
