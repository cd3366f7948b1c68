import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { ProviderConfig } from '../config/gateway-config.js';
import { GatewayError, UpstreamError } from '../shared/errors.js';
import type { UpstreamHttpRequest } from './provider-adapter.js';

export interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * HTTP to providers through undici, one keep-alive pool per provider so a slow provider cannot
 * starve the others' connections. Timeouts: connect, first byte (response headers), idle
 * (between body reads) and total (whole request, through the abort signal).
 */
export class UpstreamClient {
  private readonly agents = new Map<string, { agent: Agent; settings: string }>();

  async send(
    provider: ProviderConfig,
    upstreamRequest: UpstreamHttpRequest,
    signal: AbortSignal,
  ): Promise<UpstreamResponse> {
    try {
      const { origin, path } = this.splitUrl(upstreamRequest.url);
      // The agent directly, with origin and path: the top-level request() parses the URL each time.
      const response = await this.agentFor(provider).request({
        origin,
        path,
        method: upstreamRequest.method,
        headers: upstreamRequest.headers,
        body: upstreamRequest.body,
        signal,
        headersTimeout: provider.timeouts.firstByteMs,
        bodyTimeout: provider.timeouts.idleMs,
      });
      return { statusCode: response.statusCode, headers: response.headers, body: response.body };
    } catch (error) {
      throw toUpstreamError(error, provider, signal);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map(({ agent }) => agent.close()));
    this.agents.clear();
  }

  /**
   * After a config reload: pools of providers that are gone or whose pool settings changed are
   * closed once their requests finish (close() lets them complete), and new ones open on demand.
   */
  reconfigure(providers: ProviderConfig[]): void {
    const next = new Map(providers.map((provider) => [provider.id, agentSettings(provider)]));
    for (const [id, { agent, settings }] of this.agents) {
      if (next.get(id) === settings) continue;
      this.agents.delete(id);
      void agent.close().catch(() => undefined);
    }
  }

  /** Origins seen so far, so a URL is split with a string comparison instead of a URL parse. */
  private readonly origins: string[] = [];

  private splitUrl(url: string): { origin: string; path: string } {
    for (const origin of this.origins) {
      if (url.startsWith(origin) && url.charCodeAt(origin.length) === 47 /* / */)
        return { origin, path: url.slice(origin.length) };
    }
    const parsed = new URL(url);
    if (this.origins.length < 64 && !this.origins.includes(parsed.origin)) this.origins.push(parsed.origin);
    return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
  }

  private agentFor(provider: ProviderConfig): Agent {
    let entry = this.agents.get(provider.id);
    if (!entry) {
      entry = {
        agent: new Agent({
          connections: provider.maxConnections,
          keepAliveTimeout: 30_000,
          connect: { timeout: provider.timeouts.connectMs },
        }),
        settings: agentSettings(provider),
      };
      this.agents.set(provider.id, entry);
    }
    return entry.agent;
  }
}

/** What a provider's pool is built from: when it changes, the pool is replaced. */
function agentSettings(provider: ProviderConfig): string {
  return `${provider.maxConnections}/${provider.timeouts.connectMs}`;
}

/** Network-level failures → 502/504 with a message that names the provider, never a raw stack. */
export function toUpstreamError(error: unknown, provider: ProviderConfig, signal?: AbortSignal): GatewayError {
  if (error instanceof GatewayError) return error;
  if (signal?.aborted && signal.reason instanceof GatewayError) return signal.reason;
  const name = provider.name;
  if (error instanceof undiciErrors.HeadersTimeoutError) {
    return new UpstreamError(
      504,
      'upstream_timeout',
      `${name} did not start answering within ${provider.timeouts.firstByteMs} ms.`,
      { cause: error },
    );
  }
  if (error instanceof undiciErrors.BodyTimeoutError) {
    return new UpstreamError(
      504,
      'upstream_timeout',
      `${name} stopped sending data for ${provider.timeouts.idleMs} ms.`,
      { cause: error },
    );
  }
  if (error instanceof undiciErrors.ConnectTimeoutError) {
    return new UpstreamError(
      504,
      'upstream_timeout',
      `Could not connect to ${name} within ${provider.timeouts.connectMs} ms.`,
      { cause: error },
    );
  }
  const code =
    (error as { code?: string; cause?: { code?: string } })?.code ??
    (error as { cause?: { code?: string } })?.cause?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    return new UpstreamError(502, 'upstream_unreachable', `Could not connect to ${name} (${code}).`, { cause: error });
  }
  return new UpstreamError(
    502,
    'upstream_connection_error',
    `The connection to ${name} failed: ${(error as Error)?.message ?? String(error)}.`,
    { cause: error },
  );
}
