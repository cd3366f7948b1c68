/**
 * The docs refer to what the repository carries: the spec is docs/spec/gateway-spec.md, and no
 * doc names a path of the machine it was written on (regression: the spec audit named one).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function markdownFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return entry.endsWith('.md') ? [path] : [];
  });
}

describe('docs refer inside the repository', () => {
  it('the spec audit names the spec by its repository path, and the spec is there', () => {
    const audit = readFileSync(join(ROOT, 'docs/spec-audit.md'), 'utf8');
    expect(audit).toContain('[`docs/spec/gateway-spec.md`](spec/gateway-spec.md)');
    expect(existsSync(join(ROOT, 'docs/spec/gateway-spec.md'))).toBe(true);
    expect(readFileSync(join(ROOT, 'docs/spec/gateway-spec.md'), 'utf8')).toMatch(/^# /);
  });

  it('no README or doc names an absolute path outside the repository', () => {
    const offending = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))].filter((file) =>
      /(^|[\s`(])\/work\/|\bshared\/spec\//.test(readFileSync(file, 'utf8')),
    );
    expect(offending.map((file) => file.slice(ROOT.length + 1))).toEqual([]);
  });
});
