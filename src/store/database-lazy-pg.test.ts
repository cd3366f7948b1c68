import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from './database.js';

const loadedPg = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((file) => /[\\/]node_modules[\\/]pg[\\/]/.test(file));

it('opens a SQLite store without loading the pg driver, and loads it when a PostgreSQL store is opened', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-pg-'));
  try {
    const sqlite = openStore(`sqlite:${join(dir, 'gateway.db')}`);
    await sqlite.destroy();
    expect(loadedPg()).toEqual([]);
    // Opening the pool connects nothing yet: the driver is loaded at open, as the import was before.
    const postgres = openStore('postgres://nobody@127.0.0.1:1/none', { connectTimeoutMs: 100 });
    expect(loadedPg().length).toBeGreaterThan(0);
    await postgres.destroy();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
