/**
 * The README's five-minute tour, run as written: its commands are read from README.md (so this
 * breaks when the text drifts) and run in order in a folder of their own, terminal 1 and 2 in
 * the background, terminal 3 after them, on free ports, against the fake upstream. Before it,
 * the "Two commands" start fills the store (regression: the tour's account was then never created
 * and `keys create` failed); then the tour runs a second time on the same store.
 *
 * `npm install` is the one command not run: the folder links to this installed checkout.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { Socket } from 'node:net';
import { freePort } from '../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractTour, twoCommandsStart, type ReadmeTour } from './readme-tour-commands.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** What a fresh clone has, so the folder looks like one; data and a local config are not linked. */
const NOT_LINKED = new Set(['.git', 'data', 'gateway.config.yaml', 'tour.mjs']);

function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket();
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => (socket.destroy(), done(false)));
    socket.connect(port, '127.0.0.1');
  });
}

async function until(what: string, condition: () => Promise<boolean>, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms; output:\n${output()}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

interface Background {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

describe('the README tour, run as written', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let tour: ReadmeTour;
  let gatewayPort: number;
  let upstreamPort: number;
  const running: Background[] = [];

  /** A terminal's commands in the background (its own process group, so npm and node stop together). */
  function background(commands: string): Background {
    const child = spawn('bash', ['-c', `${tour.everyTerminal}${commands}`], {
      cwd: dir,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout!.on('data', (part) => (text += part));
    child.stderr!.on('data', (part) => (text += part));
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const entry: Background = {
      child,
      output: () => text,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          try {
            process.kill(-child.pid!, 'SIGTERM');
          } catch {
            // already gone
          }
        }
        const forced = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // already gone
          }
        }, 15_000);
        await exited;
        clearTimeout(forced);
      },
    };
    running.push(entry);
    return entry;
  }

  async function startGateway(commands: string): Promise<Background> {
    const gateway = background(commands);
    const ready = async () => {
      try {
        return (await fetch(`http://127.0.0.1:${gatewayPort}/health/ready`)).status === 200;
      } catch {
        return false;
      }
    };
    // Generous: a checkout whose dist/ is older than its sources compiles first (npm start does).
    await until('the gateway', ready, gateway.output, 180_000);
    return gateway;
  }

  /** Terminal 1 and 2 in the background, terminal 3 and the later blocks in order, then stop both. */
  async function runTour(): Promise<{ gateway: string; terminal3: ReturnType<typeof spawnSync> }> {
    const upstream = background(tour.terminals.get(1)!);
    await until('the fake upstream', () => portOpen(upstreamPort), upstream.output, 60_000);
    const gateway = await startGateway(tour.terminals.get(2)!);
    for (const file of tour.files) writeFileSync(join(dir, file.name), file.text);
    const script = ['set -eo pipefail', tour.everyTerminal, tour.terminals.get(3)!, ...tour.laterCommands].join('\n');
    const terminal3 = spawnSync('bash', ['-c', script], { cwd: dir, env, encoding: 'utf8', timeout: 240_000 });
    await gateway.stop();
    await upstream.stop();
    return { gateway: gateway.output(), terminal3 };
  }

  beforeAll(async () => {
    tour = extractTour(README);
    dir = mkdtempSync(join(tmpdir(), 'gateway-readme-tour-'));
    for (const entry of readdirSync(ROOT)) if (!NOT_LINKED.has(entry)) symlinkSync(join(ROOT, entry), join(dir, entry));
    // `npm install` is skipped (the linked checkout is installed); every other npm command is npm's.
    const realNpm = execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
    mkdirSync(join(dir, '.tour-bin'));
    writeFileSync(
      join(dir, '.tour-bin', 'npm'),
      `#!/bin/sh\nif [ "$1" = install ]; then exit 0; fi\nexec "${realNpm}" "$@"\n`,
    );
    chmodSync(join(dir, '.tour-bin', 'npm'), 0o755);
    gatewayPort = await freePort();
    upstreamPort = await freePort();
    env = {
      PATH: `${join(dir, '.tour-bin')}:${process.env.PATH}`,
      HOME: process.env.HOME,
      PORT: String(gatewayPort),
      MOCK_UPSTREAM_PORT: String(upstreamPort),
      NPM_CONFIG_UPDATE_NOTIFIER: 'false',
      NO_COLOR: '1',
    };
  });
  afterAll(async () => {
    for (const entry of running) await entry.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads three terminals, a script to save and later commands from README.md', () => {
    expect([...tour.terminals.keys()]).toEqual([1, 2, 3]);
    expect(tour.everyTerminal).toMatch(/PORT=\$\{PORT:-8080\}/);
    expect(tour.terminals.get(1)).not.toMatch(/npm run build/);
    expect(tour.files.map((file) => file.name)).toEqual(['tour.mjs']);
    expect(tour.laterCommands.join('\n')).toContain('node tour.mjs');
  });

  it('works after "Two commands" filled the store, and again on the same store', async () => {
    // "Two commands": npm start with no config creates admin@example.com, then stops.
    const first = await startGateway(twoCommandsStart(README));
    expect(first.output()).toMatch(/created the first account: admin@example.com/);
    await first.stop();

    const fresh = await runTour();
    expect(fresh.gateway).toMatch(
      /note: the store already has 1 account, so GATEWAY_ADMIN_EMAIL and GATEWAY_ADMIN_PASSWORD create nothing .*me@example.com does not exist/,
    );
    const out = fresh.terminal3.stdout;
    expect(fresh.terminal3.status, `${out}\n${fresh.terminal3.stderr}`).toBe(0);
    expect(out).toMatch(/^created user me@example.com/m);
    expect(out).not.toContain('"error"');
    expect(out).toContain('"mock/chat"');
    expect(out).toContain('"mock/embed"');
    expect(out).toContain('"content": "lorem ipsum');
    expect(out).toContain('data: [DONE]');
    expect(out).toMatch(/^8\n8\n/m);
    expect(out).toContain('{"city":"city lorem ipsum","celsius":42}');
    expect(out).toMatch(/parsed: \{\s+name: 'name lorem ipsum',/);
    expect(out).toMatch(/tool call: \{ name: 'get_weather', arguments: '\{"city":"city lorem ipsum"\}' \}/);
    expect(out).toContain('embedding: 8 dimensions');
    expect(out).toContain('"email":"me@example.com"');

    const again = await runTour();
    expect(again.gateway).toMatch(/note: .*me@example.com exists \(role user\), its password unchanged/);
    expect(again.terminal3.status, `${again.terminal3.stdout}\n${again.terminal3.stderr}`).toBe(0);
    expect(again.terminal3.stdout).toMatch(/^user me@example.com already exists .*reusing it, password unchanged/m);
    expect(again.terminal3.stdout).toContain('"email":"me@example.com"');
  }, 600_000);
});
