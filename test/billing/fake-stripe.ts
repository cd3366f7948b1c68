import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A small fake of the Stripe API endpoints billing calls (customers, checkout sessions, payment
 * methods, refunds), speaking Stripe's wire format: form-encoded requests, JSON objects, list envelopes,
 * Idempotency-Key replays. Tests move sessions along and sign webhook events like Stripe does.
 */
export interface FakeSession {
  id: string;
  object: 'checkout.session';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  mode: string;
  url: string | null;
  amount_total: number;
  currency: string;
  customer: string | null;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string;
  created: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
}

/** `a[b][0][c]=1` → {a: {b: {0: {c: '1'}}}} (Stripe's form encoding). */
function parseStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[');
    let node = root;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]] = value;
  }
  return root;
}

export class FakeStripe {
  readonly sessions = new Map<string, FakeSession>();
  readonly customers = new Map<string, { id: string; email: string; payment_methods: unknown[] }>();
  readonly requests: RecordedRequest[] = [];
  /** While true, every call answers 500 (Stripe unreachable, as far as the gateway can tell). */
  outage = false;
  private readonly idempotent = new Map<string, string>();
  private counter = 0;
  private server!: Server;
  port = 0;
  readonly webhookSecret = 'whsec_test_secret';
  private readonly signer = new Stripe('sk_test_fake');

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      void this.handle(request).then(
        ({ status, body }) => {
          response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++this.counter}` });
          response.end(JSON.stringify(body));
        },
        (error: Error) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { type: 'api_error', message: error.message } }));
        },
      );
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  settings() {
    return {
      secretKey: 'sk_test_fake',
      webhookSecret: this.webhookSecret,
      host: '127.0.0.1',
      port: this.port,
      protocol: 'http' as const,
    };
  }

  /** The buyer paid on Stripe's page. */
  complete(sessionId: string, paymentStatus: FakeSession['payment_status'] = 'paid'): FakeSession {
    const session = this.session(sessionId);
    session.status = 'complete';
    session.payment_status = paymentStatus;
    session.payment_intent = `pi_${sessionId.slice(3)}`;
    session.url = null;
    return session;
  }

  expire(sessionId: string): FakeSession {
    const session = this.session(sessionId);
    session.status = 'expired';
    session.url = null;
    return session;
  }

  session(sessionId: string): FakeSession {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no fake session ${sessionId}`);
    return session;
  }

  /** A webhook delivery: the event JSON and its Stripe-Signature header. */
  event(type: string, object: unknown, id = `evt_${++this.counter}`): { payload: string; signature: string } {
    const payload = JSON.stringify({
      id,
      object: 'event',
      api_version: '2025-01-01',
      created: Math.floor(Date.now() / 1000),
      type,
      livemode: false,
      data: { object },
      pending_webhooks: 1,
      request: { id: null },
    });
    return {
      payload,
      signature: this.signer.webhooks.generateTestHeaderString({ payload, secret: this.webhookSecret }),
    };
  }

  charge(session: FakeSession, refunded = true) {
    return {
      id: `ch_${session.id.slice(3)}`,
      object: 'charge',
      amount: session.amount_total,
      amount_refunded: refunded ? session.amount_total : 0,
      currency: session.currency,
      payment_intent: session.payment_intent,
      refunded,
    };
  }

  private async handle(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://fake');
    const body = parseStripeForm(Buffer.concat(chunks).toString());
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    this.requests.push({
      method: request.method ?? '',
      path: url.pathname,
      body,
      idempotencyKey,
      authorization: request.headers.authorization,
    });
    if (this.outage)
      return { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
    if (request.headers.authorization !== 'Bearer sk_test_fake')
      return { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } } };
    if (request.method === 'POST' && idempotencyKey) {
      const previous = this.idempotent.get(`${url.pathname}:${idempotencyKey}`);
      if (previous) return { status: 200, body: JSON.parse(previous) };
    }
    const result = this.route(request.method ?? '', url, body);
    if (request.method === 'POST' && idempotencyKey && result.status === 200)
      this.idempotent.set(`${url.pathname}:${idempotencyKey}`, JSON.stringify(result.body));
    return result;
  }

  private route(method: string, url: URL, body: Record<string, any>): { status: number; body: unknown } {
    const notFound = {
      status: 404,
      body: {
        error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such object: ${url.pathname}` },
      },
    };
    if (method === 'POST' && url.pathname === '/v1/customers') {
      const customer = {
        id: `cus_${++this.counter}`,
        email: String(body.email ?? ''),
        payment_methods: [] as unknown[],
      };
      this.customers.set(customer.id, customer);
      return {
        status: 200,
        body: { id: customer.id, object: 'customer', email: customer.email, metadata: body.metadata ?? {} },
      };
    }
    const methods = /^\/v1\/customers\/([^/]+)\/payment_methods$/.exec(url.pathname);
    if (method === 'GET' && methods) {
      const customer = this.customers.get(methods[1]);
      return customer
        ? { status: 200, body: { object: 'list', data: customer.payment_methods, has_more: false, url: url.pathname } }
        : notFound;
    }
    if (method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const item = body.line_items?.['0'];
      const id = `cs_test_${++this.counter}${Math.random().toString(36).slice(2, 8)}`;
      const session: FakeSession = {
        id,
        object: 'checkout.session',
        status: 'open',
        payment_status: 'unpaid',
        mode: String(body.mode),
        url: `https://checkout.stripe.test/c/pay/${id}`,
        amount_total: Number(item?.price_data?.unit_amount) * Number(item?.quantity ?? 1),
        currency: String(item?.price_data?.currency),
        customer: body.customer ?? null,
        client_reference_id: body.client_reference_id ?? null,
        metadata: body.metadata ?? {},
        payment_intent: null,
        success_url: String(body.success_url),
        cancel_url: String(body.cancel_url),
        created: Math.floor(Date.now() / 1000),
      };
      this.sessions.set(id, session);
      return { status: 200, body: session };
    }
    if (method === 'GET' && url.pathname === '/v1/checkout/sessions') {
      const intent = url.searchParams.get('payment_intent');
      const data = [...this.sessions.values()].filter((session) => !intent || session.payment_intent === intent);
      return { status: 200, body: { object: 'list', data, has_more: false, url: url.pathname } };
    }
    if (method === 'POST' && url.pathname === '/v1/refunds') {
      const intent = String(body.payment_intent ?? '');
      if (![...this.sessions.values()].some((session) => session.payment_intent === intent)) return notFound;
      return {
        status: 200,
        body: { id: `re_${++this.counter}`, object: 'refund', payment_intent: intent, status: 'succeeded' },
      };
    }
    const expire = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(url.pathname);
    if (method === 'POST' && expire) {
      const session = this.sessions.get(expire[1]);
      if (!session) return notFound;
      // Stripe expires only open sessions; anything else is a 400.
      if (session.status !== 'open')
        return {
          status: 400,
          body: {
            error: {
              type: 'invalid_request_error',
              message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
            },
          },
        };
      return { status: 200, body: this.expire(session.id) };
    }
    const one = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && one) {
      const session = this.sessions.get(one[1]);
      return session ? { status: 200, body: session } : notFound;
    }
    return notFound;
  }
}
