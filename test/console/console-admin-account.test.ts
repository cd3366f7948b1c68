/**
 * Issue 28 items 7 and the accessibility tests, in Debian's Chromium: the admin pages (accounts,
 * role, access, credits, refunds, invitations, audit log, any account's usage) and the account pages
 * (credit history with CSV, key rotation with its grace period, sessions, name/password/email change,
 * deletion) work end to end; axe-core finds no serious or critical violation on any page at 375 and
 * 1366 px, light and dark; sign-in, key creation and checkout work with the keyboard alone.
 * Screenshots go to docs/console/ when UPDATE_SCREENSHOTS=1 is set.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../../src/users/user-roles.js';
import type { OutgoingMail } from '../../src/users/mailer.js';
import { AccountClient } from '../helpers/account-client.js';
import { consoleConfigHead, startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/console/', import.meta.url))
  : `${mkdtempSync(join(tmpdir(), 'console-admin-shots-'))}/`;
const PASSWORD = 'correct-horse-battery';
const ADMIN_EMAIL = 'admin.walk@example.com';

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
billing:
  payment_provider: sandbox
  require_credits: true
  seller: { name: Walk Test Ltd, address: [1 Test Street], email: billing@walk.test }
`;
}

/**
 * Presses Tab until the focused element matches `selector` (at most `limit` times), and checks that
 * what has focus is on screen and drawn with a focus ring: a keyboard user sees where they are.
 */
async function tabTo(page: Page, selector: string, limit = 40): Promise<void> {
  for (let presses = 0; presses < limit; presses += 1) {
    await page.keyboard.press('Tab');
    const state = await page.evaluate((query) => {
      const element = document.activeElement as HTMLElement | null;
      if (!element || !element.matches(query)) return null;
      const rect = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      return {
        onScreen: rect.bottom > 0 && rect.top < innerHeight && rect.right > 0 && rect.left < innerWidth,
        ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
      };
    }, selector);
    if (state) {
      expect(state, `focus on ${selector}`).toEqual({ onScreen: true, ring: true });
      return;
    }
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** axe-core's serious and critical violations on the page as it stands, one line each. */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the devtools protocol: the console's Content-Security-Policy forbids inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<any> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((violation: any) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation: any) =>
          `${violation.id} (${violation.impact}): ${violation.nodes
            .slice(0, 3)
            .map((node: any) => node.target.join(' '))
            .join(', ')}`,
      );
  });
}

describe('admin and account pages, axe-core and the keyboard, in a real browser', { timeout: 120_000 }, () => {
  let browser: ConsoleBrowser;
  let page: Page;
  let base: string;
  let member: AccountClient;
  let memberId: string;
  let memberOrderId: string;
  let apiKey = '';
  /** The administrator's other session: signed in over the API, as curl would. */
  let adminElsewhere: AccountClient;
  /** Mail the gateway sent (the email-change confirmation). */
  const sent: OutgoingMail[] = [];

  const waitForSettled = async () => {
    await page.waitForLoadState('networkidle');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await startConsoleBrowser(configText, { mailer: { send: async (mail) => void sent.push(mail) } });
    ({ page, base } = browser);
    adminElsewhere = await AccountClient.signUp(base, ADMIN_EMAIL, PASSWORD);
    const adminId = (await adminElsewhere.request('GET', '/api-account/user/me')).body.id as string;
    await setRole(browser.gateway.testStore.store.db, adminId, 'admin', Date.now());
    member = await AccountClient.signUp(base, 'member.walk@example.com');
    memberId = (await member.request('GET', '/api-account/user/me')).body.id as string;
    const checkout = await member.request('POST', '/api-account/user/billing/create-checkout', { amount: 20 });
    memberOrderId = checkout.body.order_id;
    await member.request('POST', `/api-account/billing/sandbox/${checkout.body.session_id}/confirm`);
  }, 600_000);

  afterAll(async () => browser?.close(), 60_000);

  it('signs in with the keyboard alone', async () => {
    await page.goto(`${base}/sign-in`);
    await tabTo(page, '#auth-email');
    await page.keyboard.type(ADMIN_EMAIL);
    await tabTo(page, '#auth-password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/`);
    await expect.poll(() => page.getByRole('navigation', { name: 'Console' }).textContent()).toContain('Audit log');
  });

  it('creates a key with the keyboard alone, and sees it with snippets filled in', async () => {
    await page.goto(`${base}/keys`);
    await page.locator('main h1').waitFor();
    await tabTo(page, 'main button.primary');
    await page.keyboard.press('Enter');
    // The dialog takes focus; its first field is the name.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('key-name');
    await page.keyboard.type('keyboard key');
    await page.keyboard.press('Enter');
    apiKey = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(apiKey).toMatch(/^sk-gw-/);
    expect(await page.getByRole('dialog').locator('pre code').first().textContent()).toContain(apiKey);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });

  it('buys credits with the keyboard alone, through the sandbox checkout', async () => {
    await page.goto(`${base}/credits`);
    await page.locator('#credit-amount').waitFor();
    await tabTo(page, '#credit-amount');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('30');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/billing\/sandbox\/checkout\//);
    await tabTo(page, 'button.pay');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/credits\/result/);
    await expect.poll(() => page.locator('main').textContent()).toMatch(/paid/i);
  });

  it('admin: finds an account, grants and deducts credits with a reason, and the audit log says so', async () => {
    await page.goto(`${base}/admin/users`);
    await page.getByLabel('Email or name').fill('member.walk');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'member.walk@example.com' }).click();
    await page.waitForURL(`${base}/admin/users/${memberId}`);
    await page.getByLabel('Amount (USD)').fill('5.5');
    await page.getByLabel('Reason', { exact: true }).fill('welcome bonus');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.getByText('Granted $5.50; the balance is now $25.50.').waitFor();
    await page.getByLabel('Deduct').check();
    await page.getByLabel('Amount (USD)').fill('0.5');
    await page.getByLabel('Reason', { exact: true }).fill('correction');
    await page.getByRole('button', { name: 'Deduct credits' }).click();
    await page.getByText('Deducted $0.50; the balance is now $25.00.').waitFor();
    await page.getByRole('link', { name: 'Audit log' }).last().click();
    await page.waitForURL(/\/admin\/audit-log\?target_user_id=/);
    const rows = page.locator('main tbody tr');
    await expect
      .poll(() => rows.allTextContents())
      .toEqual([
        expect.stringMatching(/credits\.deduct.*admin\.walk@example\.com.*member\.walk@example\.com.*correction/),
        expect.stringMatching(/credits\.grant.*welcome bonus/),
      ]);
  });

  it('admin: refunds a paid order, takes the role away and gives it back, disables and enables', async () => {
    await page.goto(`${base}/admin/users/${memberId}`);
    await page.getByRole('button', { name: `Refund order ${memberOrderId}` }).click();
    await page.getByRole('alertdialog').getByLabel('Reason (kept in the audit log)').fill('asked for it');
    await page.getByRole('button', { name: 'Refund order', exact: true }).click();
    await expect
      .poll(() => page.locator('main tbody tr', { hasText: memberOrderId }).textContent())
      .toContain('refunded');
    // 20 bought and refunded, 5.5 granted, 0.5 deducted.
    await expect.poll(() => page.locator('.stat', { hasText: 'Balance' }).textContent()).toContain('$5.00');

    await page.getByLabel('Role').selectOption('admin');
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByText('Role is now admin.').waitFor();
    await page.getByLabel('Role').selectOption('user');
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByText('Role is now user.').waitFor();

    await page.getByLabel('Reason (kept in the audit log)').fill('testing');
    await page.getByRole('button', { name: 'Disable account' }).click();
    await page.getByText('Disabled: its keys and sessions have ended.').waitFor();
    expect((await member.request('GET', '/api-account/user/me')).status).toBe(401);
    await page.getByRole('button', { name: 'Enable account' }).click();
    await page.getByText('Enabled: the account can sign in again.').waitFor();
    // Its usage report is on the same page (no traffic yet).
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await page.getByText('This account made no requests with its keys in this range.').waitFor();
  });

  it('admin: issues an invitation (link shown once) and revokes it', async () => {
    await page.goto(`${base}/admin/invitations`);
    await page.getByLabel('Email address').fill('guest.walk@example.com');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    expect(await page.locator('.callout code').textContent()).toMatch(/\/sign-up\?invite=.+&email=guest\.walk/);
    const row = page.locator('main tbody tr', { hasText: 'guest.walk@example.com' });
    await expect.poll(() => row.textContent()).toContain('open');
    await page.getByRole('button', { name: 'Revoke the invitation for guest.walk@example.com' }).click();
    await expect.poll(() => row.count()).toBe(0);
  });

  it('account: the credit history lists the purchase, filters by kind, and exports CSV', async () => {
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 });
    await client.chat.completions.create({ model: 'mock/chat', messages: [{ role: 'user', content: 'Hi' }] });
    await page.goto(`${base}/credits/history`);
    const rows = page.locator('main tbody tr');
    await expect.poll(async () => (await rows.allTextContents()).join('\n'), { timeout: 20_000 }).toMatch(/purchase/);
    await page.getByLabel('Kind').selectOption('purchase');
    await expect.poll(() => rows.count()).toBe(1);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toMatch(/^id,/);
    expect(csv).toMatch(/purchase/);
  });

  it('account: rotates a key with a grace period; the old secret still works, the new one too', async () => {
    await page.goto(`${base}/keys`);
    await page.getByRole('button', { name: 'Rotate keyboard key' }).click();
    await page.getByLabel('Grace period for the old secret').selectOption('3600');
    await page.getByRole('button', { name: 'Rotate key', exact: true }).click();
    const rotated = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(rotated).toMatch(/^sk-gw-/);
    expect(rotated).not.toBe(apiKey);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByText(/Old secret works until/).waitFor();
    for (const key of [apiKey, rotated]) {
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: key, maxRetries: 0 });
      const answer = await client.chat.completions.create({
        model: 'mock/chat',
        messages: [{ role: 'user', content: 'Hi' }],
      });
      expect(answer.choices[0].message.content).toBeTruthy();
    }
  });

  it('account: lists sessions and signs out another; changes the name, the password and asks for an email change', async () => {
    await page.goto(`${base}/account`);
    const sessions = page.locator('section', { has: page.getByRole('heading', { name: 'Sessions' }) });
    await expect.poll(() => sessions.locator('tbody tr').count()).toBe(2);
    await sessions.getByRole('button', { name: /^Sign out the session/ }).click();
    await expect.poll(() => sessions.locator('tbody tr').count()).toBe(1);
    expect((await adminElsewhere.request('GET', '/api-account/user/me')).status).toBe(401);

    await page.getByLabel('Name').fill('Walk Admin');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Saved.').waitFor();

    await page.getByLabel('Current password', { exact: true }).last().fill(PASSWORD);
    await page.getByLabel('New password').fill('another-horse-battery');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Every other session was signed out.').waitFor();
    // This browser is still signed in (its session was replaced, the cookie with it).
    expect((await page.request.get(`${base}/api-account/user/me`)).status()).toBe(200);

    await page.getByLabel('New email address').fill('admin.moved@example.com');
    await page.locator('#email-password').fill('another-horse-battery');
    await page.getByRole('button', { name: 'Send confirmation link' }).click();
    const emailForm = page.locator('form', { hasText: 'Send confirmation link' });
    await emailForm.locator('[role=status], [role=alert]').waitFor();
    expect(await emailForm.locator('[role=alert]').count(), (await emailForm.textContent()) ?? '').toBe(0);
    await expect.poll(() => sent.some((mail) => mail.to === 'admin.moved@example.com')).toBe(true);
  });

  it('axe-core finds no serious or critical violation on any page, at 375 and 1366 px, light and dark', async () => {
    const pages = [
      '/',
      '/keys',
      '/usage',
      '/activity',
      '/credits',
      '/credits/history',
      '/playground',
      '/account',
      '/models',
      '/models/mock/chat',
      '/providers',
      '/providers/mock',
      '/rankings',
      '/admin/users',
      `/admin/users/${memberId}`,
      '/admin/invitations',
      '/admin/audit-log',
    ];
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [375, 1366]) {
        await page.setViewportSize({ width, height: 860 });
        for (const path of pages) {
          await page.goto(`${base}${path}`);
          await page.locator('main h1').first().waitFor();
          await waitForSettled();
          for (const violation of await axeViolations(page)) found.push(`${path} @${width} ${scheme}: ${violation}`);
        }
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(found).toEqual([]);
  }, 600_000);

  it('the admin accounts page, an account, the credit history and the account page at 375 and 1366 px', async () => {
    const shots: [string, string][] = [
      ['admin-users', '/admin/users'],
      ['admin-user', `/admin/users/${memberId}`],
      ['credit-history', '/credits/history'],
      ['account', '/account'],
      ['admin-audit-log', '/admin/audit-log'],
    ];
    for (const width of [375, 1366]) {
      await page.setViewportSize({ width, height: 860 });
      for (const [name, path] of shots) {
        await page.goto(`${base}${path}`);
        await page.locator('main h1').first().waitFor();
        await waitForSettled();
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, `${path} @${width}`).toBeLessThanOrEqual(width);
        await page.screenshot({ path: `${SHOTS}${name}-${width}.png`, fullPage: true });
      }
    }
  });

  it('account: deletion asks for the password, then the account is gone (and sign-in passes axe-core)', async () => {
    await page.setViewportSize({ width: 1366, height: 860 });
    await page.goto(`${base}/account`);
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByLabel('Password').fill('not-the-password-1');
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await dialog.getByRole('alert').waitFor();
    await dialog.getByLabel('Password').fill('another-horse-battery');
    await dialog.getByRole('button', { name: 'Delete account' }).click();
    await page.waitForURL(/\/sign-in/);
    const again = await fetch(`${base}/api-account/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin.walk@example.com', password: 'another-horse-battery' }),
    });
    expect(again.status).toBe(401);
    // Signed out now: the sign-in and sign-up pages pass axe-core too.
    for (const width of [375, 1366]) {
      await page.setViewportSize({ width, height: 860 });
      for (const path of ['/sign-in', '/sign-up']) {
        await page.goto(`${base}${path}`);
        await page.locator('h1').first().waitFor();
        await waitForSettled();
        expect(await axeViolations(page), `${path} @${width}`).toEqual([]);
      }
    }
  });
});
