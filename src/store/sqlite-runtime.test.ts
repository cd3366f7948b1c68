import { describe, expect, it } from 'vitest';
import { assertSqliteRuntime } from './database.js';

describe('the SQLite runtime check', () => {
  it('refuses Node 20 with an error naming the version, instead of the driver crashing the process', () => {
    expect(() => assertSqliteRuntime('20.20.2')).toThrow(/SQLite needs Node 22 or later, this is Node 20\.20\.2/);
  });

  it('accepts the LTS lines 22 and 24 and later releases', () => {
    for (const version of ['22.13.0', '24.21.0', '26.12.1']) expect(() => assertSqliteRuntime(version)).not.toThrow();
  });
});
