import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The static part of a string or template literal (up to the first `${`). */
function literalPrefix(literal: string): string {
  return literal.slice(1, -1).split('${')[0]!;
}

/**
 * Paths a module builds from its own location: `new URL('…', import.meta.url)` and
 * `join|resolve(import.meta.dirname | dirname(fileURLToPath(import.meta.url)), '…', …)`.
 */
export function pathsBuiltFromModule(source: string): string[][] {
  const found: string[][] = [];
  for (const match of source.matchAll(/new URL\(\s*('[^']*'|`[^`]*`)\s*,\s*import\.meta\.url\s*\)/g))
    found.push([literalPrefix(match[1]!)]);
  const here = String.raw`(?:import\.meta\.dirname|dirname\(\s*fileURLToPath\(\s*import\.meta\.url\s*\)\s*\))`;
  const call = new RegExp(
    String.raw`(?:join|resolve)\(\s*${here}\s*,((?:\s*(?:'[^']*'|\x60[^\x60]*\x60)\s*,?)+)\s*\)`,
    'g',
  );
  for (const match of source.matchAll(call))
    found.push([...match[1]!.matchAll(/'[^']*'|`[^`]*`/g)].map((literal) => literalPrefix(literal[0])));
  return found;
}

describe('every test and script reads only files inside the repository', () => {
  const files = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', 'src', 'test', 'scripts'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((file) => /\.(ts|js|mjs)$/.test(file));

  it('finds the paths a module builds from its own location (the detector itself works)', () => {
    expect(pathsBuiltFromModule("new URL('../../../shared/fixtures/', import.meta.url)")).toEqual([
      ['../../../shared/fixtures/'],
    ]);
    expect(pathsBuiltFromModule("join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'catalog')")).toEqual([
      ['..', '..', 'catalog'],
    ]);
    expect(pathsBuiltFromModule('new URL(`../x/${name}`, import.meta.url)')).toEqual([['../x/']]);
    expect(files.length).toBeGreaterThan(100);
  });

  it('no module-relative path leaves the repository, and none names the team-only shared folder', () => {
    const escaping: string[] = [];
    for (const file of files) {
      if (file === 'test/repository/reads-inside-repository.test.ts') continue; // its own examples
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const parts of pathsBuiltFromModule(source)) {
        const target = resolve(dirname(join(ROOT, file)), ...parts);
        if (relative(ROOT, target).startsWith('..')) escaping.push(`${file}: ${parts.join(', ')}`);
      }
      if (source.includes('shared/fixtures')) escaping.push(`${file}: shared/fixtures`);
    }
    expect(escaping).toEqual([]);
  });
});
