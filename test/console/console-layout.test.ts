/**
 * The console's layout at every common width, light and dark, in Debian's Chromium: no page scrolls
 * sideways, no table is wider than its box, every action button lies inside the viewport and the
 * routing-mode select shows its whole text. Regression test for the layout faults of issue 28 (the
 * keys table pushed Edit/Revoke behind a horizontal scroll at 1280–1600 px, every page was 383 px wide
 * on a 375 px phone with Sign out clipped, the routing-mode select cut its text).
 *
 * One browser and one tab: each page is loaded once per theme and measured at every width by resizing
 * the viewport, which re-runs the responsive CSS without reloading. Screenshots at 375 and 1366 px go to
 * docs/console/ when UPDATE_SCREENSHOTS=1 is set.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { freePort } from '../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { chromiumArgs, ensureChromium, freshUserDataDir } from '../helpers/chromium.js';
import { ensureConsoleBuild } from '../helpers/console-build.js';

const WIDTHS = [375, 768, 1024, 1280, 1366, 1600, 1920];
const SHOT_WIDTHS = new Set([375, 1366]);
const SHOT_PAGES = new Set(['dashboard', 'keys', 'usage', 'models', 'model']);
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/console/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'console-layout-shots-'))}/`;
// Every page of the console, with the element that says its content has arrived.
const PAGES: { path: string; name: string; ready: string }[] = [
  { path: '/', name: 'dashboard', ready: 'main h1' },
  { path: '/keys', name: 'keys', ready: 'main tbody tr' },
  { path: '/usage', name: 'usage', ready: 'main tbody tr' },
  { path: '/credits', name: 'credits', ready: 'main tbody tr' },
  { path: '/playground', name: 'playground', ready: 'main h1' },
  { path: '/models', name: 'models', ready: '.model-row' },
  { path: '/models/mock/a-model-with-a-rather-long-identifier', name: 'model', ready: 'main h1' },
  { path: '/providers', name: 'providers', ready: 'main tbody tr' },
  { path: '/providers/mock', name: 'provider', ready: 'main h1' },
  { path: '/rankings', name: 'rankings', ready: 'main h1' },
];

function configText(upstreamUrl: string, port: number): string {
  const model = (id: string, name: string) => `
  - id: ${id}
    name: ${name}
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: mock
        upstream_model: mock-model
        pricing: { prompt: 0.5, completion: 1.5, cache_read: 0.05, cache_write: 0.625 }
        context_length: 128000`;
  return `
server:
  public_url: http://127.0.0.1:${port}
providers:
  - id: mock
    name: Mock AI with a long provider name
    type: openai
    base_url: ${upstreamUrl}
    api_key: upstream-secret
models:${model('mock/chat', 'Mock Chat')}${model('mock/a-model-with-a-rather-long-identifier', 'A Model With A Rather Long Display Name For Layout')}
billing:
  payment_provider: sandbox
  require_credits: true
  seller: { name: Layout Test Ltd, address: [1 Test Street], email: billing@layout.test }
`;
}

/** What overflows on the page as it stands: the document, any table, any action button. */
async function layoutFaults(page: Page, width: number): Promise<string[]> {
  return page.evaluate((viewport) => {
    const faults: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > viewport) faults.push(`document ${doc.scrollWidth}px wide`);
    for (const table of document.querySelectorAll('table')) {
      const box = table.parentElement as HTMLElement;
      if (table.scrollWidth > viewport || box.scrollWidth > box.clientWidth + 1)
        faults.push(`table "${table.querySelector('th')?.textContent}" ${table.scrollWidth}px in ${box.clientWidth}px`);
    }
    for (const button of document.querySelectorAll<HTMLElement>('button, a.button, select')) {
      const rect = button.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue; // not displayed (closed menu)
      if (rect.left < -0.5 || rect.right > viewport + 0.5)
        faults.push(`"${button.getAttribute('aria-label') ?? button.textContent}" at ${rect.left}–${rect.right}px`);
      // A box that clips its own content sideways hides part of the button from view.
      let parent = button.parentElement;
      while (parent && parent !== document.body) {
        const outer = parent.getBoundingClientRect();
        const style = getComputedStyle(parent);
        if (style.overflowX !== 'visible' && (rect.right > outer.right + 0.5 || rect.left < outer.left - 0.5))
          faults.push(`"${button.getAttribute('aria-label') ?? button.textContent}" clipped by its box`);
        parent = parent.parentElement;
      }
    }
    return faults;
  }, width);
}

/** The routing-mode select's chosen text, measured in its own font, against the room the select gives it. */
async function selectTextFits(page: Page, selector: string): Promise<{ text: number; room: number }> {
  return page.evaluate((query) => {
    const select = document.querySelector<HTMLSelectElement>(query)!;
    const style = getComputedStyle(select);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = context.measureText(select.selectedOptions[0].text).width;
    // The arrow of a native select takes about 20 px of the padding box.
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
    return { text, room };
  }, selector);
}

describe('console layout at every width, light and dark', { timeout: 300_000 }, () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let base: string;

  beforeAll(async () => {
    const executablePath = ensureChromium();
    const consoleDir = ensureConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    upstream = await startMockUpstream({ scenario: { chunkCount: 3, chunkGapMs: 1 } });
    const port = await freePort();
    gateway = await startTestGateway({ configText: configText(upstream.url, port), port, deps: { consoleDir } });
    base = gateway.url;
    profile = freshUserDataDir();
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      args: chromiumArgs(),
      headless: true,
      viewport: { width: 1280, height: 860 },
      colorScheme: 'light',
    });
    context.setDefaultTimeout(20_000);
    page = context.pages()[0] ?? (await context.newPage());

    // An account with a long email, credits, a key with every limit and one request of traffic.
    await page.goto(`${base}/sign-up`);
    await page.getByLabel('Email').fill('a.rather.long.address.for.layout@example-company.test');
    await page.getByLabel('Password').fill('correct-horse-battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${base}/`);
    await page.goto(`${base}/credits`);
    await page.getByLabel('Amount (USD)').fill('25');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.waitForURL(/\/credits\/result/);
    await page.goto(`${base}/keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('production backend for the layout test');
    await dialog.getByLabel('Description (optional)').fill('Used by the nightly jobs of the data team');
    await dialog.getByLabel('Requests per minute').fill('120');
    await dialog.getByLabel('Monthly quota (USD)').fill('10');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent()) ?? '';
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: key, maxRetries: 0 });
    await client.chat.completions.create({ model: 'mock/chat', messages: [{ role: 'user', content: 'Hi' }] });
    // Usage is written in batches: wait until the request is counted.
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const usage = await page.request.get(`${base}/api-account/user/usage`);
      if (usage.ok() && JSON.stringify(await usage.json()).includes('mock/chat')) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }, 600_000);

  afterAll(async () => {
    await Promise.race([context?.close(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
    await gateway?.close();
    await upstream?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  }, 60_000);

  for (const scheme of ['light', 'dark'] as const) {
    it(`no page overflows at any width (${scheme})`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      const faults: string[] = [];
      for (const target of PAGES) {
        await page.setViewportSize({ width: 1280, height: 860 });
        await page.goto(`${base}${target.path}`);
        await page.locator(target.ready).first().waitFor();
        await page.waitForLoadState('networkidle');
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 860 });
          // Two frames: layout, then charts that measure their box.
          await page.evaluate(
            () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
          );
          for (const fault of await layoutFaults(page, width)) faults.push(`${target.path} @${width}px: ${fault}`);
          if (scheme === 'light' && SHOT_WIDTHS.has(width) && SHOT_PAGES.has(target.name))
            await page.screenshot({ path: `${SHOTS}${target.name}-${width}.png`, fullPage: true });
        }
      }
      expect(faults).toEqual([]);
    });
  }

  it('the key form shows the whole routing-mode text at every width', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${base}/keys`);
    await page
      .getByRole('button', { name: /^Edit / })
      .first()
      .click();
    await page.getByRole('dialog').waitFor();
    const cut: string[] = [];
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 860 });
      for (const value of ['code', 'manual']) {
        await page.locator('#key-routingMode').selectOption(value);
        const { text, room } = await selectTextFits(page, '#key-routingMode');
        if (text > room) cut.push(`${value} @${width}px: ${Math.round(text)}px text in ${Math.round(room)}px`);
      }
      for (const fault of await layoutFaults(page, width)) cut.push(`dialog @${width}px: ${fault}`);
    }
    expect(cut).toEqual([]);
  });
});
