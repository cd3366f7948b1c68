/**
 * Issue 28 item 8: the console takes every response type from `console/src/api/schema.d.ts`,
 * generated from the gateway's own OpenAPI document. This fails when a route's schema changed and
 * the file was not regenerated (`npm run console:api`), so the console cannot drift from the API;
 * and it keeps the hand-written copy of the response types from coming back.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/console-build.js';

const COMMITTED = join(REPO_ROOT, 'console/src/api/schema.d.ts');

describe('the console API types', { timeout: 120_000 }, () => {
  it('are what the gateway’s OpenAPI document generates now', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-api-types-'));
    try {
      const target = join(dir, 'schema.d.ts');
      const result = spawnSync('npx', ['tsx', 'scripts/export-openapi.ts', target], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      });
      expect(result.status, result.stderr).toBe(0);
      const options = { ...(await prettier.resolveConfig(COMMITTED)), filepath: COMMITTED };
      const generated = await prettier.format(readFileSync(target, 'utf8'), options);
      expect(generated === readFileSync(COMMITTED, 'utf8'), 'run `npm run console:api`').toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('have no hand-written copy beside them', () => {
    expect(existsSync(join(REPO_ROOT, 'console/src/api/responses.ts'))).toBe(false);
  });
});
