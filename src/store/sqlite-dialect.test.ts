import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from './database.js';
import { isDatabaseUnavailable } from './database-errors.js';

/*
 * The serving connection's lock waits run on timers, not in SQLite's busy handler: with the
 * handler (busy_timeout 5000) a write that met another connection's write lock slept on the event
 * loop until the lock was free or 5 s had passed, and no timer, I/O or other request ran
 * meanwhile. Here a second connection holds the write lock, as the settlement writer thread does
 * while it commits a batch, and only a timer of this thread gives it back.
 */
describe('SQLite lock waits off the event loop', () => {
  let dir: string;
  let store: Store | undefined;
  let other: SqliteDatabase.Database | undefined;

  afterEach(async () => {
    if (other?.inTransaction) other.exec('rollback');
    other?.close();
    other = undefined;
    await store?.destroy();
    store = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(options: { sqliteBusyTimeoutMs?: number } = {}): Promise<Store> {
    dir = mkdtempSync(join(tmpdir(), 'gateway-busy-'));
    const file = join(dir, 'gateway.db');
    store = openStore(`sqlite:${file}`, options);
    await sql`create table entries (id integer primary key, source text not null)`.execute(store.db);
    other = new SqliteDatabase(file);
    return store;
  }

  /** The second connection takes the write lock and writes a row it has not committed. */
  function holdWriteLock(): void {
    other!.exec('begin immediate');
    other!.prepare('insert into entries (source) values (?)').run('other');
  }

  const sources = async (db: Store['db']) =>
    (
      await db
        .selectFrom('entries' as never)
        .select(sql<string>`source`.as('source'))
        .orderBy(sql`id`)
        .execute()
    ).map((row) => row.source);

  it(
    'a statement on its own waits while timers run, then lands after the other commit',
    { timeout: 20_000 },
    async () => {
      const { db } = await open();
      holdWriteLock();
      const events: string[] = [];
      const write = sql`insert into entries (source) values ('main')`.execute(db).then(
        () => events.push('main written'),
        (error: Error) => events.push(`main failed: ${error.message}`),
      );
      // Queued behind the write on the one connection: it must see the write, as before.
      const readAfter = sources(db);
      await new Promise((resolve) => setImmediate(resolve));
      events.push('immediate ran');
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push('timer ran, other commits');
      other!.exec('commit');
      await write;
      expect(events).toEqual(['immediate ran', 'timer ran, other commits', 'main written']);
      expect(await readAfter).toEqual(['other', 'main']);
    },
  );

  it(
    'a transaction waits at BEGIN IMMEDIATE while timers run; its body runs once, after the other commit',
    { timeout: 20_000 },
    async () => {
      const { db } = await open();
      holdWriteLock();
      const events: string[] = [];
      let bodyRuns = 0;
      const transaction = db
        .transaction()
        .execute(async (trx) => {
          bodyRuns++;
          events.push('body runs');
          // Read then write: the read must see the other connection's committed row.
          const seen = await sources(trx);
          await sql`insert into entries (source) values (${`main after ${seen.join(',')}`})`.execute(trx);
        })
        .then(
          () => events.push('main committed'),
          (error: Error) => events.push(`main failed: ${error.message}`),
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push('timer ran, other commits');
      other!.exec('commit');
      await transaction;
      expect(events).toEqual(['timer ran, other commits', 'body runs', 'main committed']);
      expect(bodyRuns).toBe(1);
      expect(await sources(db)).toEqual(['other', 'main after other']);
    },
  );

  it('a lock held past the budget fails with the SQLITE_BUSY SQLite gave before, and nothing was written', async () => {
    const { db } = await open({ sqliteBusyTimeoutMs: 50 });
    holdWriteLock();
    let bodyRan = false;
    const single = sql`insert into entries (source) values ('main')`.execute(db);
    const transaction = db.transaction().execute(async (trx) => {
      bodyRan = true;
      await sql`insert into entries (source) values ('main in transaction')`.execute(trx);
    });
    for (const attempt of [single, transaction]) {
      const error = await attempt.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(SqliteDatabase.SqliteError);
      expect(error).toMatchObject({ code: 'SQLITE_BUSY', message: 'database is locked' });
      expect(isDatabaseUnavailable(error)).toBe(true);
    }
    expect(bodyRan).toBe(false);
    other!.exec('rollback');
    // The connection is usable again and holds nothing of the failed attempts.
    expect(await sources(db)).toEqual([]);
    await sql`insert into entries (source) values ('later')`.execute(db);
    expect(await sources(db)).toEqual(['later']);
  });

  it('an error other than SQLITE_BUSY is thrown at once, not tried again', async () => {
    const { db } = await open();
    await sql`insert into entries (id, source) values (1, 'first')`.execute(db);
    await expect(sql`insert into entries (id, source) values (1, 'again')`.execute(db)).rejects.toMatchObject({
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
    expect(await sources(db)).toEqual(['first']);
  });
});
