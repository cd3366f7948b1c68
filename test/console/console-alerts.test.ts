/**
 * Issue 27 item 5 in the console, in Debian's Chromium: a key's spend thresholds set from the keys
 * page, the balance alert and the sent-alerts log on the account page, and the key form's
 * include_cost toggle; each checked through the account API afterwards.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountClient } from '../helpers/account-client.js';
import { consoleConfigHead, startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';

const PASSWORD = 'correct-horse-battery';
const EMAIL = 'alerts.walk@example.com';

function configText(upstreamUrl: string, port: number): string {
  return `${consoleConfigHead(upstreamUrl, port)}models:
  - id: mock/chat
    endpoints:
      - provider: mock
        upstream_model: mock-model
        pricing: { prompt: 0.5, completion: 1.5 }
`;
}

describe('alerts in the console, in a real browser', { timeout: 120_000 }, () => {
  let browser: ConsoleBrowser;
  let page: Page;
  let base: string;
  let member: AccountClient;
  let keyId: string;

  beforeAll(async () => {
    browser = await startConsoleBrowser(configText);
    ({ page, base } = browser);
    member = await AccountClient.signUp(base, EMAIL, PASSWORD);
    keyId = (await member.request('POST', '/api-account/user/api-keys', { name: 'alerted key' })).body.key_id;
    await page.goto(`${base}/sign-in`);
    await page.locator('#auth-email').fill(EMAIL);
    await page.locator('#auth-password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/`);
  }, 600_000);

  afterAll(async () => browser?.close(), 60_000);

  it('sets a daily and a monthly threshold on a key from the keys page', async () => {
    await page.goto(`${base}/keys`);
    await page.getByRole('button', { name: 'Spend alerts of alerted key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Per day (USD)').fill('2.5');
    await dialog.getByLabel('Per month (USD)').fill('40');
    await dialog.getByRole('button', { name: 'Save alert' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const alert = await member.request('GET', `/api-account/user/api-keys/${keyId}/alerts/spend`);
    expect(alert.body).toMatchObject({
      configured: true,
      thresholds: { daily: 2.5, weekly: null, monthly: 40 },
      email: true,
      webhook_url: null,
    });
    // A bad amount is named in the form, and nothing changes.
    await dialog.getByLabel('Per week (USD)').fill('-3');
    await dialog.getByRole('button', { name: 'Save alert' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'weekly threshold' }).waitFor();
    expect(
      (await member.request('GET', `/api-account/user/api-keys/${keyId}/alerts/spend`)).body.thresholds.weekly,
    ).toBe(null);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });

  it('turns include_cost on in the key form', async () => {
    await page.getByRole('button', { name: 'Edit alerted key' }).click();
    await page.getByLabel('Always include the cost (usage.cost) in answers').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect((await member.request('GET', `/api-account/user/api-keys/${keyId}`)).body.include_cost).toBe(true);
  });

  it('sets the balance alert on the account page, which lists sent alerts', async () => {
    await page.goto(`${base}/account`);
    await page.getByLabel('Balance threshold (USD)').fill('5');
    await page.getByRole('button', { name: 'Save alert' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await member.request('GET', '/api-account/user/alerts/balance')).body).toMatchObject({
      configured: true,
      threshold: 5,
    });
    await page.getByText('No alert has been sent yet.').waitFor();
  });
});
