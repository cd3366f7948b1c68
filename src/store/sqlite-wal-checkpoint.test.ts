import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { checkpointOffThread } from './sqlite-wal-checkpoint.js';

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
};

describe('WAL checkpoints off the event loop', () => {
  const folder = mkdtempSync(join(tmpdir(), 'wal-checkpoint-'));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('the serving connection stops checkpointing; the worker copies the WAL into the database', async () => {
    const file = join(folder, 'gateway.db');
    const sqlite = new SqliteDatabase(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB)');
    const stop = checkpointOffThread(sqlite, file);
    await until(() => sqlite.pragma('wal_autocheckpoint', { simple: true }) === 0);
    // 6 MB in the WAL, past the worker's 4 MB threshold; the serving connection copies none of it.
    const insert = sqlite.prepare('INSERT INTO blobs (body) VALUES (?)');
    for (let index = 0; index < 6; index++) insert.run(Buffer.alloc(1024 * 1024, index));
    // Only a checkpoint grows the database file: the worker's (no timing asserted, the test's timeout bounds it).
    await until(() => statSync(file).size > 5 * 1024 * 1024);
    expect(sqlite.prepare('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 6 });
    await stop();
    sqlite.close();
  }, 60_000);
});
