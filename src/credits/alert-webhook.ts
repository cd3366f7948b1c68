import { createHmac, timingSafeEqual } from 'node:crypto';

/** The signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'x-gateway-signature';

/** Signs a webhook body at a time (pure): the timestamp is inside the signed text, so a replay later is detectable. */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/** What a receiver does (documented, and used by the tests): checks the signature and that it is recent. */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const time = Number(parts.t);
  if (!Number.isInteger(time) || Math.abs(nowSeconds - time) > toleranceSeconds || !parts.v1) return false;
  const expected = Buffer.from(signWebhook(secret, body, time).split('v1=')[1]!, 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Waits between attempts: 1 s, 4 s, 16 s, … (×4), as `retryDelayMs(attempt)` for attempt 1, 2, … */
export function retryDelayMs(attempt: number, baseMs = 1000): number {
  return baseMs * 4 ** (attempt - 1);
}

export interface WebhookResult {
  delivered: boolean;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
}

/**
 * POSTs the body, signed anew at each attempt, until a 2xx or `maxAttempts`; each attempt has a
 * timeout. A 4xx other than 408/429 is the receiver refusing: not retried.
 */
export async function deliverWebhook(options: {
  url: string;
  secret: string;
  body: string;
  fetch: typeof fetch;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  maxAttempts?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
}): Promise<WebhookResult> {
  const maxAttempts = options.maxAttempts ?? 4;
  let last: WebhookResult = { delivered: false, attempts: 0, responseStatus: null, error: null };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) await options.sleep(retryDelayMs(attempt - 1, options.baseDelayMs));
    try {
      const response = await options.fetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SIGNATURE_HEADER]: signWebhook(options.secret, options.body, Math.floor(options.now() / 1000)),
        },
        body: options.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      await response.body?.cancel().catch(() => undefined);
      last = { delivered: response.ok, attempts: attempt, responseStatus: response.status, error: null };
      if (response.ok) return last;
      last.error = `HTTP ${response.status}`;
      if (response.status < 500 && response.status !== 408 && response.status !== 429) return last;
    } catch (error) {
      last = {
        delivered: false,
        attempts: attempt,
        responseStatus: null,
        error: (error as Error).message.slice(0, 200),
      };
    }
  }
  return last;
}
