/**
 * First-load JavaScript of the web console, gzipped, from the Vite build's manifest: the entry
 * chunk with everything it imports statically, and for each page the entry plus that page's own
 * chunks (what a browser downloads to show that page on a cold visit). `npm run console:size`.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
type Manifest = Record<string, ManifestChunk>;

export interface BundleSizes {
  /** The shell: entry chunk and its static imports, bytes after gzip. */
  entryGzip: number;
  /** Per page (source path): entry + page chunks, bytes after gzip. */
  pages: { page: string; gzip: number }[];
  /** The largest first load of any page. */
  largestGzip: number;
}

function staticClosure(manifest: Manifest, key: string, seen = new Set<string>()): Set<string> {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imported of manifest[key]?.imports ?? []) staticClosure(manifest, imported, seen);
  return seen;
}

export function measureBundle(distDir: string): BundleSizes {
  const manifest = JSON.parse(readFileSync(join(distDir, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  const gzipped = new Map<string, number>();
  const size = (key: string) => {
    const file = manifest[key].file;
    if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(distDir, file))).length);
    return gzipped.get(file)!;
  };
  const sum = (keys: Set<string>) => [...keys].reduce((total, key) => total + size(key), 0);
  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
  if (!entryKey) throw new Error('the manifest has no entry chunk');
  const entry = staticClosure(manifest, entryKey);
  const pages = (manifest[entryKey].dynamicImports ?? []).map((page) => {
    const all = new Set([...entry, ...staticClosure(manifest, page)]);
    return { page: manifest[page].src ?? page, gzip: sum(all) };
  });
  const entryGzip = sum(entry);
  return { entryGzip, pages, largestGzip: Math.max(entryGzip, ...pages.map((page) => page.gzip)) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = measureBundle(fileURLToPath(new URL('../console/dist', import.meta.url)));
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
  console.log(`shell (entry + static imports): ${kb(sizes.entryGzip)} gzip`);
  for (const page of sizes.pages) console.log(`  ${page.page.padEnd(48)} ${kb(page.gzip)} gzip first load`);
  console.log(`largest first load: ${kb(sizes.largestGzip)} gzip (budget 250 kB)`);
}
