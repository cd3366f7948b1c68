import { createHash } from 'node:crypto';

/**
 * Content-Security-Policy of every HTML page the gateway serves (issue 25, item 9): the console,
 * the password-reset page, the sandbox checkout and its message pages.
 *
 * Scripts and styles come from the gateway's own origin; an inline `<script>` or `<style>` runs
 * only when its exact text was hashed from the page's static template (`inlineSources`), never by
 * a nonce stamped on whatever the page holds, so markup injected into a page stays inert. Data a
 * page needs goes in a `<script type="application/json">` block, which is not executed. The page
 * cannot be framed (`frame-ancestors 'none'`), cannot send forms or connections elsewhere, and
 * cannot change its base URL or load plugins.
 */
export interface InlineSources {
  scripts: string[];
  styles: string[];
}

const NONE: InlineSources = { scripts: [], styles: [] };

const sha256Source = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The hash sources of the inline scripts and styles in a trusted HTML template: every
 * `<script>` without `src` that the browser executes (no `type`, or a JavaScript one) and every
 * `<style>`. Call it on static text (a template, a built file), never on a page with user data.
 */
export function inlineSources(html: string): InlineSources {
  const scripts: string[] = [];
  const styles: string[] = [];
  for (const match of html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)) {
    const attributes = match[1] ?? '';
    if (/\ssrc\s*=/i.test(attributes)) continue;
    const type = /\stype\s*=\s*["']?([^"'\s>]+)/i.exec(attributes)?.[1]?.toLowerCase();
    if (type && type !== 'module' && !type.includes('javascript')) continue;
    scripts.push(sha256Source(match[2]));
  }
  for (const match of html.matchAll(/<style(?:\s[^>]*)?>([\s\S]*?)<\/style>/gi)) styles.push(sha256Source(match[1]));
  return { scripts: [...new Set(scripts)], styles: [...new Set(styles)] };
}

/** The policy text for a page with these inline sources. */
export function contentSecurityPolicy(inline: InlineSources = NONE): string {
  const list = (sources: string[]) => (sources.length > 0 ? ` ${sources.join(' ')}` : '');
  return [
    "default-src 'self'",
    `script-src 'self'${list(inline.scripts)}`,
    `style-src 'self'${list(inline.styles)}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
