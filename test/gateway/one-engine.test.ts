import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every source file under a folder (tests excluded). */
function sources(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The request lifecycle (plan, admission, deadline, observers) lived in three handlers that had
 * started to drift apart. These are its landmarks: each must appear in the engine only.
 */
describe('the request lifecycle exists once', () => {
  const landmarks = [
    'planRequest(',
    'new RequestDeadline(',
    '.onCompletion(',
    '.admit(',
    'The client closed the connection.',
  ];
  const files = sources('src/gateway');

  for (const landmark of landmarks) {
    it(`only the engine holds ${landmark}`, () => {
      const holders = files.filter((file) => readFileSync(file, 'utf8').includes(landmark));
      expect(holders).toEqual([join('src/gateway/engine/request-engine.ts')]);
    });
  }
});
