import { describe, expect, it } from 'vitest';
import { measureBundle } from '../../scripts/console-bundle-size.js';
import { ensureConsoleBuild } from '../helpers/console-build.js';

describe('web console bundle', () => {
  it('loads any page cold with at most 250 kB of gzipped JavaScript', () => {
    const sizes = measureBundle(ensureConsoleBuild());
    expect(sizes.pages.length).toBeGreaterThanOrEqual(10);
    expect(sizes.entryGzip).toBeGreaterThan(10_000);
    for (const page of sizes.pages) expect(page.gzip, page.page).toBeLessThanOrEqual(250_000);
  });
});
