/**
 * The web console end to end, in Debian's Chromium driven by playwright-core, against the real
 * gateway (SQLite) and the fake upstream: sign up, buy credits through the sandbox checkout, create
 * a key and use it from the openai SDK, see it on the usage page, stream in the playground,
 * download a receipt, browse the catalog. Screenshots of every page go to docs/console/ when
 * UPDATE_SCREENSHOTS=1 is set.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleConfigHead, startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';

// The pictures in docs/console are refreshed on request (UPDATE_SCREENSHOTS=1), so an ordinary test run
// leaves the working tree clean; otherwise they go to a temporary folder.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/console/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'console-shots-'))}/`;
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct-horse-battery';

function configText(upstreamUrl: string, port: number): string {
  return `${consoleConfigHead(upstreamUrl, port)}models:
  - id: mock/chat
    name: Mock Chat
    input_modalities: [text]
    output_modalities: [text]
    endpoints:
      - provider: mock
        upstream_model: mock-model
        pricing: { prompt: 0.5, completion: 1.5 }
        context_length: 128000
  - id: mock/other
    name: Other Chat
    endpoints:
      - provider: mock
        upstream_model: mock-model
        pricing: { prompt: 0.5, completion: 1.5 }
  - id: mock/embed
    name: Mock Embed
    output_modalities: [embeddings]
    endpoints:
      - provider: mock
        upstream_model: mock-embed
        pricing: { prompt: 0.02, completion: 0 }
billing:
  payment_provider: sandbox
  require_credits: true
  platform_fee_rate: 0.05
  seller: { name: Console Test Ltd, address: [1 Test Street, Testville], email: billing@console.test }
`;
}

describe('web console in a real browser', { timeout: 60_000 }, () => {
  let browser: ConsoleBrowser | undefined;
  let context: BrowserContext;
  let page: Page;
  let base: string;

  const shot = async (name: string, target: Page = page) => {
    // Charts draw after layout; give them their frame before the picture.
    await target.waitForLoadState('networkidle');
    await target.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
  };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // 20 chunks 40 ms apart: slow enough to watch the answer grow token by token.
    browser = await startConsoleBrowser(configText, {
      scenario: { chunkCount: 20, chunkGapMs: 40 },
      viewport: { width: 1280, height: 860 },
      timeoutMs: 15_000,
      acceptDownloads: true,
    });
    ({ context, page, base } = browser);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
  }, 60_000);

  it('a signed-out visit goes to sign-in, and signing up returns to the page asked for', async () => {
    await page.goto(`${base}/keys`);
    await page.waitForURL(/\/sign-in\?next=%2Fkeys$/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot('sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL(/\/sign-up\?next=%2Fkeys$/);
    await page.getByLabel('Name (optional)').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${base}/keys`);
    await page.getByText('No API keys yet').waitFor();
    // The session is a cookie: it survives a reload.
    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByText(EMAIL).count()).toBe(1);
  });

  it('buys credits through the sandbox checkout and comes back to the order', async () => {
    await page.goto(`${base}/credits`);
    await page.getByText('No orders yet').waitFor();
    await page.getByLabel('Amount (USD)').fill('25');
    await page.getByText('You pay $26.25').waitFor();
    await shot('credits-empty');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/billing\/sandbox\/checkout\/sbx_/);
    await page.getByRole('button', { name: /Pay/ }).waitFor();
    await shot('sandbox-checkout');
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.waitForURL(/\/credits\/result\?order_id=ord_/);
    await page.getByText('Payment received: the credits are on your balance.').waitFor();
    await shot('checkout-result');

    await page.getByRole('link', { name: 'Back to credits' }).click();
    await page.getByText('$25.00').first().waitFor();
    const row = page.locator('tbody tr').first();
    expect(await row.textContent()).toContain('paid');
    await shot('credits');
  });

  it('downloads the receipt of the paid order as a PDF', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: /Download the receipt/ }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^RCT-\d+\.pdf$/);
    expect(download.url()).toMatch(/\/api-account\/billing\/documents\/doc_\w+\.pdf\?expires=\d+&signature=/);
    // What the browser saved, read back through playwright: a PDF.
    const saved: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) saved.push(chunk as Buffer);
    expect(Buffer.concat(saved).subarray(0, 5).toString()).toBe('%PDF-');
    expect((await fetch(download.url())).headers.get('content-type')).toBe('application/pdf');
  });

  let fullKey = '';
  it('creates a key (shown once) and the openai SDK can use it', async () => {
    await page.goto(`${base}/keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('e2e app');
    await dialog.getByLabel('Requests per minute').fill('120');
    await dialog.getByLabel('Monthly quota (USD)').fill('10');
    await shot('keys-create');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('You will not see it again.').waitFor();
    fullKey = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(fullKey).toMatch(/^sk-gw-/);
    await shot('keys-created');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('button', { name: 'Edit e2e app' }).waitFor();
    expect(await page.locator('tbody').textContent()).toContain('120 rpm');
    await shot('keys');

    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: fullKey });
    const answer = await client.chat.completions.create({
      model: 'mock/chat',
      messages: [{ role: 'user', content: 'Hello from the SDK' }],
    });
    expect(answer.choices[0].message.content).toContain('lorem');
    expect(answer.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('shows that request on the usage page, by model and by key', async () => {
    // Usage is written in batches: reload until the request is counted.
    const byKey = page.locator('section', { has: page.getByRole('heading', { name: 'By key' }) });
    for (let attempt = 0; attempt < 20; attempt += 1) {
      await page.goto(`${base}/usage`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      if ((await byKey.getByRole('cell', { name: 'e2e app', exact: true }).count()) > 0) break;
      await page.waitForTimeout(500);
    }
    await byKey.getByRole('cell', { name: 'e2e app', exact: true }).waitFor();
    const cells = await byKey.locator('tbody tr').first().locator('td').allTextContents();
    expect(cells.slice(0, 2)).toEqual(['e2e app', '1']);
    await page.locator('.recharts-surface').first().waitFor();
    await shot('usage');

    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(csv.suggestedFilename()).toMatch(/^usage-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const text: Buffer[] = [];
    for await (const chunk of await csv.createReadStream()) text.push(chunk as Buffer);
    const lines = Buffer.concat(text).toString().split('\r\n');
    expect(lines[0]).toBe('section,name,requests,prompt_tokens,completion_tokens,total_tokens,cost_usd');
    expect(lines).toContainEqual(expect.stringMatching(/^key,e2e app,1,\d+,20,\d+,0\.0000\d+$/));
  });

  it('streams a playground answer token by token, with tokens, cost and latency', async () => {
    await page.goto(`${base}/playground`);
    await page.getByRole('button', { name: 'Create a playground key' }).click();
    await page.getByLabel('Model', { exact: true }).selectOption('mock/chat');
    await page.getByLabel('Message').fill('Tell me something');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.getByTestId('turn-assistant').last();
    // Watch the answer grow while it streams.
    const lengths = new Set<number>();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await page.getByTestId('turn-stats').count()) === 0) {
      lengths.add(((await answer.textContent()) ?? '').length);
      await page.waitForTimeout(30);
    }
    await page.getByTestId('turn-stats').waitFor();
    expect(lengths.size).toBeGreaterThanOrEqual(4);
    const stats = (await page.getByTestId('turn-stats').textContent()) ?? '';
    expect(stats).toMatch(/\d+ in · 20 out tokens/);
    expect(stats).toMatch(/\$0\.0000\d+/);
    expect(stats).toContain('first token');
    expect(await answer.textContent()).toContain('lorem ipsum');
    await shot('playground');
    // Only chat models are offered, and an answer keeps the model that wrote it (issue 28).
    const offered = await page.getByLabel('Model', { exact: true }).locator('option').allTextContents();
    expect(offered).toContain('mock/other');
    expect(offered).not.toContain('mock/embed');
    await page.getByLabel('Model', { exact: true }).selectOption('mock/other');
    expect(await answer.getByText('mock/chat', { exact: true }).count()).toBe(1);
  });

  it('revokes a key after confirmation, and the SDK is refused at once', async () => {
    await page.goto(`${base}/keys`);
    await page.getByRole('button', { name: 'Revoke e2e app' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText('This cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('button', { name: 'Edit e2e app' }).waitFor({ state: 'detached' });
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: fullKey, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: 'mock/chat', messages: [{ role: 'user', content: 'Hi' }] }),
    ).rejects.toMatchObject({ status: 401 });
  });

  it('browses the catalog to a model page', async () => {
    await page.goto(`${base}/models`);
    await page.getByLabel('Search').fill('mock');
    await page.getByRole('link', { name: /Mock Chat/ }).click();
    await page.waitForURL(`${base}/models/mock/chat`);
    await page.getByRole('heading', { name: 'Mock Chat' }).waitFor();
    await page.getByRole('button', { name: 'Copy model id' }).waitFor();
    const details = (await page.locator('main').textContent()) ?? '';
    expect(details).toContain('$0.50 / M');
    expect(details).toContain('128K tokens');
    expect(details).toContain('Mock AI');
    await shot('model');
    await page.goto(`${base}/models`);
    await page.locator('.model-row').first().waitFor();
    await shot('models');
  });

  it('shows the dashboard, providers and rankings (and every page has screenshots)', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Top models' }).waitFor();
    await page.locator('.recharts-surface').first().waitFor();
    await shot('dashboard');

    await page.goto(`${base}/providers`);
    await page.getByRole('link', { name: 'Mock AI' }).click();
    await page.waitForURL(`${base}/providers/mock`);
    await page.locator('.recharts-surface').first().waitFor();
    await shot('provider');
    await page.goto(`${base}/providers`);
    await page.getByRole('link', { name: 'Mock AI' }).waitFor();
    await shot('providers');

    await page.goto(`${base}/rankings`);
    await page.getByRole('cell', { name: /Mock Chat/ }).waitFor();
    await shot('rankings');
    // "Today" charts today, by hour, and says which span it shows (it used to chart 7 days).
    await page.getByLabel('Window').selectOption('day');
    await page.getByRole('heading', { name: 'Hourly tokens by model, last 24 hours' }).waitFor();
  });

  it('has a dark theme and fits a phone', async () => {
    const dark = await context.newPage();
    await dark.emulateMedia({ colorScheme: 'dark' });
    await dark.goto(`${base}/`);
    await dark.locator('.recharts-surface').first().waitFor();
    const background = await dark.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(background).toBe('rgb(14, 17, 23)');
    await shot('dashboard-dark', dark);
    await dark.goto(`${base}/playground`);
    await dark.getByLabel('Message').waitFor();
    await shot('playground-dark', dark);
    await dark.close();

    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${base}/`);
    await phone.locator('.recharts-surface').first().waitFor();
    // No sideways scrolling at phone width.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot('dashboard-phone', phone);
    await phone.getByRole('button', { name: 'Menu' }).click();
    await phone.getByRole('link', { name: 'Usage' }).click();
    await phone.waitForURL(`${base}/usage`);
    await phone.getByRole('heading', { name: 'Usage' }).waitFor();
    await shot('usage-phone', phone);
    await phone.close();
  });

  it('signs out, and the account pages ask for sign-in again', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/sign-in`);
    await page.goto(`${base}/usage`);
    await page.waitForURL(/\/sign-in\?next=%2Fusage$/);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/usage`);
  });
});
