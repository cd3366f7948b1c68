#!/usr/bin/env node
// `npm start`: runs the compiled gateway. It compiles first only when dist/ is missing or older
// than a source file (the install's `prepare` step has normally built it), so a start costs the
// server's own start-up time, not a TypeScript build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'main.js');

/** The newest modification time among the build's inputs. */
function newestSource() {
  let newest = Math.max(
    ...['tsconfig.json', 'tsconfig.build.json', 'package.json'].map((file) => statSync(join(root, file)).mtimeMs),
  );
  const walk = (directory) => {
    for (const item of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, item.name);
      if (item.isDirectory()) walk(path);
      else if (item.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(root, 'src'));
  return newest;
}

if (!existsSync(entry) || statSync(entry).mtimeMs < newestSource()) {
  process.stderr.write('sources changed since the last build: compiling (npm run build)…\n');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// The CLI reads its command from argv: `npm start -- --port 9000` passes the options through.
process.argv = [process.argv[0], entry, 'serve', ...process.argv.slice(2)];
await import(pathToFileURL(entry).href);
