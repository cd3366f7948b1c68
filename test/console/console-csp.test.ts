/**
 * Issue 25, item 9: console pages carried no Content-Security-Policy. Every HTML page the gateway
 * serves now carries one, and the console still works under it: this test drives Debian's Chromium
 * (playwright-core) through every page kind (sign-up, keys, the sandbox checkout, usage charts, a
 * streamed playground answer, the catalog, dashboard, providers, rankings, the dark theme set
 * before the first paint, the password-reset page) and requires that the browser reported no
 * policy violation at all.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleConfigHead, startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';

const configText = (upstreamUrl: string, port: number) => `${consoleConfigHead(upstreamUrl, port)}models:
  - id: mock/chat
    name: Mock Chat
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: mock
        upstream_model: mock-model
        pricing: { prompt: 0.5, completion: 1.5 }
        context_length: 128000
billing:
  payment_provider: sandbox
  require_credits: true
`;

describe('console pages under a Content-Security-Policy, in a real browser', { timeout: 60_000 }, () => {
  let browser: ConsoleBrowser | undefined;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  /** Every violation the browser reported: console messages and securitypolicyviolation events. */
  const violations: string[] = [];
  /** The policy header of every HTML document the browser loaded. */
  const documents: { url: string; policy: string | undefined }[] = [];

  const watch = (target: Page) => {
    target.on('console', (message) => {
      if (/content security policy/i.test(message.text())) violations.push(`${target.url()}: ${message.text()}`);
    });
    target.on('response', (response) => {
      if (response.request().resourceType() === 'document')
        documents.push({ url: response.url(), policy: response.headers()['content-security-policy'] });
    });
  };

  beforeAll(async () => {
    browser = await startConsoleBrowser(configText, {
      scenario: { chunkCount: 10, chunkGapMs: 20 },
      viewport: { width: 1280, height: 860 },
      timeoutMs: 15_000,
    });
    ({ context, page, base } = browser);
    // Also the DOM event, which reports what the console message might word differently (an init
    // script runs on every navigation, of this page too).
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    watch(page);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
  }, 60_000);

  it('signs up, buys credits in the sandbox checkout, creates a key and streams in the playground', async () => {
    await page.goto(`${base}/keys`);
    await page.waitForURL(/\/sign-in\?next=%2Fkeys$/);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Email').fill('csp@example.com');
    await page.getByLabel('Password').fill('correct-horse-battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${base}/keys`);
    await page.getByText('No API keys yet').waitFor();

    await page.goto(`${base}/credits`);
    await page.getByLabel('Amount (USD)').fill('25');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/billing\/sandbox\/checkout\/sbx_/);
    // The checkout's script runs (it is allowed by its hash): paying brings the buyer back.
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.waitForURL(/\/credits\/result\?order_id=ord_/);
    await page.getByText('Payment received: the credits are on your balance.').waitFor();

    await page.goto(`${base}/keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('csp app');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('You will not see it again.').waitFor();
    await page.getByRole('button', { name: 'I have copied it' }).click();

    await page.goto(`${base}/playground`);
    await page.getByRole('button', { name: 'Create a playground key' }).click();
    await page.getByLabel('Model', { exact: true }).selectOption('mock/chat');
    await page.getByLabel('Message').fill('Tell me something');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('turn-stats').waitFor();
    expect(await page.getByTestId('turn-assistant').last().textContent()).toContain('lorem ipsum');
    expect(violations).toEqual([]);
  });

  it('draws the usage, dashboard, provider, catalog and rankings pages', async () => {
    for (const [path, ready] of [
      ['/usage', '.recharts-surface'],
      ['/', '.recharts-surface'],
      ['/providers/mock', '.recharts-surface'],
      ['/models', '.model-row'],
      ['/models/mock/chat', 'main h1'],
      ['/rankings', 'main h1'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await page.locator(ready).first().waitFor();
      await page.waitForLoadState('networkidle');
    }
    expect(violations).toEqual([]);
  });

  it('applies a saved dark theme before the first paint (the inline script is allowed by its hash)', async () => {
    const dark = await context.newPage();
    watch(dark);
    await dark.goto(`${base}/`);
    await dark.evaluate(() => localStorage.setItem('console-theme', 'dark'));
    await dark.goto(`${base}/models`);
    expect(await dark.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await dark.close();
    expect(violations).toEqual([]);
  });

  it('runs the password-reset page', async () => {
    await page.goto(`${base}/reset-password?token=not-a-real-token`);
    await page.locator('#password').fill('saffron-glacier-31-otter');
    await page.locator('#again').fill('saffron-glacier-31-otter');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByText(/unknown, expired or already used/).waitFor();
    expect(violations).toEqual([]);
  });

  it('sent a policy with every page it loaded, with no unsafe source', async () => {
    expect(documents.length).toBeGreaterThan(10);
    for (const { url, policy } of documents) {
      expect(policy, url).toBeDefined();
      expect(policy, url).toContain("script-src 'self'");
      expect(policy, url).toContain("frame-ancestors 'none'");
      expect(policy, url).not.toContain('unsafe-');
    }
  });
});
