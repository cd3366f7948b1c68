/**
 * The Activity page (issue 27) in Debian's Chromium against the real gateway (SQLite) and the fake
 * upstream: requests made with two keys show up with their cost and status, the key filter keeps
 * one key's failures, the drawer shows a request's attempts, and neither a phone (375 px) nor a
 * laptop (1366 px) scrolls sideways. UPDATE_SCREENSHOTS=1 writes docs/console/activity*.png.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { requestJson } from '../helpers/account-client.js';
import { startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';
import { usageEvents } from '../helpers/usage-events.js';

const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/console/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'activity-shots-'))}/`;

describe('Activity page in a real browser', { timeout: 90_000 }, () => {
  let browser: ConsoleBrowser | undefined;
  let gateway: TestGateway;
  let context: BrowserContext;
  let page: Page;
  let failedRequestId: string;

  /** No sideways scrolling; on failure, the elements that stick out (outside a scrolling table frame). */
  const noSidewaysScroll = async (target: Page, width: number) => {
    const offenders = await target.evaluate(
      (limit) =>
        [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > limit + 0.5 && !element.closest('.table-wrap'))
          .map(
            (element) =>
              `${element.tagName}.${element.className} → ${Math.round(element.getBoundingClientRect().right)}`,
          ),
      width,
    );
    expect(offenders).toEqual([]);
    expect(await target.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  };
  const shot = async (target: Page, name: string) => {
    await target.waitForLoadState('networkidle');
    await target.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
  };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await startConsoleBrowser(
      (upstreamUrl, port) =>
        testConfigText(upstreamUrl).replace('server:\n', `server:\n  public_url: http://127.0.0.1:${port}\n`),
      { scenario: { chunkCount: 8 }, viewport: { width: 1366, height: 900 } },
    );
    ({ gateway, context, page } = browser);
    // The second key keeps content (log_content): its requests show their bodies in the drawer.
    const secondKey = await gateway.createKey({ name: 'batch jobs', logContent: true });
    const chat = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      requestJson(gateway.url, 'POST', '/v1/chat/completions', body, { authorization: `Bearer ${key}`, ...headers });
    const hello = { model: 'test/chat', messages: [{ role: 'user', content: 'Write a haiku about plums.' }] };
    for (let index = 0; index < 3; index++)
      expect((await chat(gateway.apiKey, hello, { 'x-title': 'Plum Notes' })).status).toBe(200);
    expect((await chat(gateway.apiKey, { ...hello, stream: true })).status).toBe(200);
    expect((await chat(secondKey, hello)).status).toBe(200);
    const failed = await chat(secondKey, { ...hello, model: 'nobody/serves-this' });
    expect(failed.status).toBe(404);
    failedRequestId = failed.headers.get('x-request-id')!;
    await usageEvents(gateway, 6);
    for (let attempt = 0; attempt < 100; attempt++) {
      await gateway.gateway.contentLog.flush();
      const kept = await gateway.testStore.store.db.selectFrom('request_contents').select('id').execute();
      if (kept.length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    await page.goto(`${gateway.url}/activity`);
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('Email').fill(gateway.email);
    await page.getByLabel('Password').fill('plum-orbit-42-lantern');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${gateway.url}/activity`);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
  }, 60_000);

  it('lists every request with its cost and status, without sideways scrolling at 1366 px', async () => {
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(6);
    await expect.poll(() => page.getByText('404 model_not_found').count()).toBe(1);
    expect(await page.getByRole('cell', { name: 'Plum Notes' }).count()).toBe(3);
    await noSidewaysScroll(page, 1366);
    await shot(page, 'activity');
  });

  it('opens a request in a drawer with its attempts, tokens and cost', async () => {
    await page.locator('tbody tr').first().getByRole('button').click();
    const drawer = page.getByRole('dialog');
    await drawer.getByRole('heading', { name: 'Attempts' }).waitFor();
    await drawer.getByText('Tokens and cost').waitFor();
    expect(await drawer.locator('tbody tr').count()).toBeGreaterThanOrEqual(0);
    await shot(page, 'activity-drawer');
    await drawer.getByRole('button', { name: 'Close' }).click();
    // A request served by the mock: one attempt, 200.
    await page.locator('tbody tr', { hasText: 'Plum Notes' }).first().getByRole('button').click();
    await expect.poll(() => drawer.locator('tbody tr').count()).toBe(1);
    expect(await drawer.locator('tbody tr').first().textContent()).toContain('mock');
    await drawer.getByRole('button', { name: 'Close' }).click();
  });

  it('shows the kept request and answer of a key with content logging, and says when none was kept', async () => {
    await page.goto(`${gateway.url}/activity`);
    await page
      .locator('tbody tr', { hasText: 'batch jobs' })
      .filter({ hasNotText: 'model_not_found' })
      .getByRole('button')
      .click();
    const drawer = page.getByRole('dialog');
    const request = drawer.getByRole('region', { name: 'Request body' });
    await request.waitFor();
    expect(await request.locator('pre').textContent()).toContain('Write a haiku about plums.');
    const answer = drawer.getByRole('region', { name: 'Answer body' });
    expect(await answer.locator('pre').textContent()).toContain('"choices"');
    await noSidewaysScroll(page, 1366);
    await shot(page, 'activity-drawer-content');
    await drawer.getByRole('button', { name: 'Close' }).click();
    await page.locator('tbody tr', { hasText: 'Plum Notes' }).first().getByRole('button').click();
    await drawer.getByText('Not kept.').waitFor();
    expect(await drawer.getByRole('region', { name: 'Request body' }).count()).toBe(0);
    await drawer.getByRole('button', { name: 'Close' }).click();
  });

  it('is reached from a key on the keys page, filtered to that key; failures only', async () => {
    await page.goto(`${gateway.url}/keys`);
    await page.getByRole('link', { name: 'Activity of batch jobs' }).click();
    await page.waitForURL(/\/activity\?key_id=/);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await page.getByLabel('Status').selectOption('error');
    await page.waitForURL(/status=error/);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.locator('tbody tr').first().getByRole('button').click();
    await page.getByRole('dialog').getByText(failedRequestId).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    // The export links carry the same filters.
    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(href).toMatch(/key_id=.*status=error.*format=csv/);
    const csv = await page.evaluate(async (url) => (await fetch(url)).text(), href!);
    expect(csv.trim().split('\r\n')).toHaveLength(2);
  });

  it('fits a 375 px phone: the table scrolls inside its frame, the page does not', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 375, height: 812 });
    await phone.goto(`${gateway.url}/activity`);
    await expect.poll(() => phone.locator('tbody tr').count()).toBe(6);
    await noSidewaysScroll(phone, 375);
    await shot(phone, 'activity-phone');
    await phone.locator('tbody tr').first().getByRole('button').click();
    await phone.getByRole('dialog').getByRole('heading', { name: 'Attempts' }).waitFor();
    await noSidewaysScroll(phone, 375);
    const box = await phone.getByRole('dialog').boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    await phone.close();
  });
});
