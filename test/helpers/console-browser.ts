import { rmSync } from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, type TestGateway } from './test-gateway.js';
import type { MockScenario } from '../../src/mock-upstream/mock-scenario.js';
import type { Mailer } from '../../src/users/mailer.js';
import { chromiumArgs, ensureChromium, freshUserDataDir } from './chromium.js';
import { ensureConsoleBuild } from './console-build.js';
import { freePort } from './free-port.js';

/** A gateway serving the built console, a mock upstream and one Chromium tab, for console tests. */
export interface ConsoleBrowser {
  base: string;
  gateway: TestGateway;
  upstream: MockUpstream;
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

interface ConsoleBrowserOptions {
  viewport?: { width: number; height: number };
  mailer?: Mailer;
  /** The mock upstream's answers (default: 3 chunks 1 ms apart). */
  scenario?: MockScenario;
  /** Playwright's default timeout for every action and wait (default 20 s). */
  timeoutMs?: number;
  acceptDownloads?: boolean;
}

/**
 * Starts it all: `configText` gets the upstream's URL and the gateway's port (for `public_url`,
 * which the sandbox checkout's return address and the CSRF origin check use).
 */
export async function startConsoleBrowser(
  configText: (upstreamUrl: string, port: number) => string,
  options: ConsoleBrowserOptions = {},
): Promise<ConsoleBrowser> {
  const viewport = options.viewport ?? { width: 1366, height: 860 };
  const executablePath = ensureChromium();
  const consoleDir = ensureConsoleBuild();
  const upstream = await startMockUpstream({ scenario: options.scenario ?? { chunkCount: 3, chunkGapMs: 1 } });
  const port = await freePort();
  const gateway = await startTestGateway({
    configText: configText(upstream.url, port),
    port,
    deps: { consoleDir },
    mailer: options.mailer,
  });
  const profile = freshUserDataDir();
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    args: chromiumArgs(),
    headless: true,
    acceptDownloads: options.acceptDownloads,
    viewport,
    colorScheme: 'light',
  });
  context.setDefaultTimeout(options.timeoutMs ?? 20_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    base: gateway.url,
    gateway,
    upstream,
    context,
    page,
    async close() {
      // On a loaded machine Chromium can take long to shut down; never let that hold the gateway open.
      await Promise.race([context.close(), new Promise((resolve) => setTimeout(resolve, 20_000))]);
      await gateway.close();
      await upstream.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The start of a console test's config: `public_url` on the gateway's `port` and the mock provider at
 * `upstreamUrl`. The caller's `models:` section (and any more) follows it.
 */
export function consoleConfigHead(upstreamUrl: string, port: number): string {
  return `
server:
  public_url: http://127.0.0.1:${port}
providers:
  - id: mock
    name: Mock AI
    type: openai
    base_url: ${upstreamUrl}
    api_key: upstream-secret
`;
}
