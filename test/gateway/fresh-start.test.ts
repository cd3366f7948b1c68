import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../helpers/free-port.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The README's first command on a fresh machine: `npm start` with no environment variables at
 * all (only PATH, and PORT so the test can pick a free port), in an empty directory. This is
 * what `npm start` runs (scripts/start.mjs: the compiled CLI, compiled first if dist/ is stale).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const START = join(ROOT, 'scripts/start.mjs');
const dir = mkdtempSync(join(tmpdir(), 'gateway-fresh-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  output: () => string;
  errors: () => string;
  /** Milliseconds from spawning to the first 200 from /health/ready. */
  readyAfterMs: number;
  /** stdout as it was at that first 200. */
  outputWhenReady: string;
  url: string;
}

async function start(port: number): Promise<Started> {
  let output = '';
  let errors = '';
  const began = performance.now();
  const child = spawn(process.execPath, [START], {
    cwd: dir,
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const url = `http://127.0.0.1:${port}`;
  // Probe from the first moment: a port that answers before start-up finished would show here.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${output}\n${errors}`);
    if (performance.now() - began > 120_000) throw new Error(`not ready in time:\n${output}\n${errors}`);
    const status = await fetch(`${url}/health/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    expect(status).toBe(0);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
  }
  const readyAfterMs = performance.now() - began;
  const outputWhenReady = output;
  return { child, output: () => output, errors: () => errors, readyAfterMs, outputWhenReady, url };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolvePromise) => child.on('exit', (code) => resolvePromise(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('npm start on a fresh machine, no environment variables', () => {
  it('serves, prints the URL, store, config and the first account, and that account can sign in', async () => {
    const port = await freePort();
    const first = await start(port);
    // The account exists (and its password is printed) before the port answers anything.
    const credentials = first.outputWhenReady.match(/created the first account: (\S+)\n\s+password: (\S+)/);
    expect(credentials, first.outputWhenReady).not.toBeNull();
    const [, email, password] = credentials!;
    expect(email).toBe('admin@example.com');

    for (let waited = 0; !first.output().includes('config:') && waited < 5000; waited += 20)
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
    expect(first.output()).toContain(`gateway listening on http://127.0.0.1:${port}`);
    expect(first.output()).toContain(`store:     sqlite:${join(dir, 'data/gateway.db')}`);
    expect(first.output()).toContain('config:    defaults and environment (no config file)');

    const signIn = await fetch(`${first.url}/api-account/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(signIn.status).toBe(200);
    const { token } = (await signIn.json()) as { token: string };
    const me = await fetch(`${first.url}/api-account/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { email: string }).email).toBe(email);
    expect(await stop(first.child)).toBe(0);
    console.log(`fresh start: ready after ${first.readyAfterMs.toFixed(0)} ms (first start, empty store)`);

    // Second start on the same store: no new account, no password, and no rebuild.
    const second = await start(port);
    expect(second.outputWhenReady).not.toMatch(/password/);
    expect(second.errors()).not.toMatch(/compiling/);
    console.log(`fresh start: ready after ${second.readyAfterMs.toFixed(0)} ms (second start)`);
    expect(await stop(second.child)).toBe(0);
  }, 240_000);
});
