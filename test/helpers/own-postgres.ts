import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const BIN = process.env.TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** The cluster's data directory (postmaster.pid names the server's process). */
  dataDir: string;
  /** pg_ctl stop -m fast: every connection is cut, the server exits. */
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
}

/**
 * A throw-away PostgreSQL cluster of the test's own (initdb + pg_ctl in a temp dir, a free port)
 * for outage tests, never the shared server on 5432. initdb refuses to run as root, so under root
 * the tools run as the `postgres` system user (runuser), and the temp dir is handed to it.
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'gateway-own-pg-'));
  chmodSync(root, 0o777);
  const data = join(root, 'data');
  const asOwner = (tool: string, args: string[]) =>
    process.getuid?.() === 0
      ? run('runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args], { cwd: root })
      : run(join(BIN, tool), args, { cwd: root });
  await asOwner('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const start = async () => {
    await asOwner('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-w', '-t', '30', 'start']);
  };
  const stop = async () => {
    await asOwner('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']).catch(() => undefined);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir: data,
    start,
    stop,
    async restart() {
      await stop();
      await start();
    },
    async destroy() {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
