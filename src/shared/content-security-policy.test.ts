import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, inlineSources } from './content-security-policy.js';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('inlineSources', () => {
  it('hashes executed inline scripts and styles, exactly as written', () => {
    const html = `<style>body{margin:0}</style><script>
  run();
</script><script type="module">go()</script><script src="/assets/app.js"></script>
<script type="application/json">{"data":1}</script><script type="text/javascript">old()</script>`;
    expect(inlineSources(html)).toEqual({
      scripts: [hash('\n  run();\n'), hash('go()'), hash('old()')],
      styles: [hash('body{margin:0}')],
    });
  });

  it('finds nothing in a page without inline code', () => {
    expect(inlineSources('<p>hello</p><script src="/a.js"></script>')).toEqual({ scripts: [], styles: [] });
  });
});

describe('contentSecurityPolicy', () => {
  it('allows only the page’s own origin and the given inline sources, and no framing', () => {
    const policy = contentSecurityPolicy({ scripts: ["'sha256-a'"], styles: ["'nonce-b'"] });
    expect(policy).toContain("script-src 'self' 'sha256-a'");
    expect(policy).toContain("style-src 'self' 'nonce-b'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).not.toContain('unsafe');
    expect(contentSecurityPolicy()).toContain("script-src 'self';");
  });
});
