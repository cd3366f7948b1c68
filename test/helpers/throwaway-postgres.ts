import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';

/** A PostgreSQL cluster of the test's own (never the shared one), for outage tests: stop it, start it again. */
export interface ThrowawayPostgres {
  url: string;
  /** Stops it (fast shutdown: open connections are cut). Runs without blocking the event loop. */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** initdb + pg_ctl in a temp folder on a free port; run as the postgres user when we are root (initdb refuses root). */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (program: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(BIN, program),
      asRoot ? ['-u', 'postgres', '--', join(BIN, program), ...args] : args,
      {
        stdio: 'pipe',
        timeout: 60_000,
      },
    );
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const runAsync = async (program: string, args: string[]) => {
    await promisify(execFile)(
      asRoot ? 'runuser' : join(BIN, program),
      asRoot ? ['-u', 'postgres', '--', join(BIN, program), ...args] : args,
      { timeout: 60_000 },
    );
  };
  const start = () => runAsync('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    async destroy() {
      await stop().catch(() => undefined); // already stopped
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
