import { createServer } from 'node:http';
import { SIGNATURE_HEADER } from '../../src/credits/alert-webhook.js';

/** A local HTTP server standing in for an alert webhook's receiver. */
export interface WebhookReceiver {
  /** Its URL (`http://127.0.0.1:<port>/hook`). */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts one: each call it gets is pushed to `hooks` (body and signature header), and it answers the
 * statuses in `replies` in turn, then 200.
 */
export async function startWebhookReceiver(
  hooks: Array<{ body: string; signature: string }>,
  replies: number[],
): Promise<WebhookReceiver> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      hooks.push({ body, signature: String(request.headers[SIGNATURE_HEADER]) });
      response.statusCode = replies.shift() ?? 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
