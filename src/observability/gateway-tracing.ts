import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { FastifyInstance } from 'fastify';
import type { CompletionObserver, CompletionOutcome } from '../routing/completion-outcome.js';
import type { TracingSettings } from './observability-settings.js';

/**
 * OpenTelemetry traces: one SERVER span per HTTP request (joining a caller's `traceparent`) and,
 * for chat completions, one CLIENT child span per upstream attempt, fallbacks and retries
 * included. Attempt spans are written when the request's outcome is known, with the times the
 * attempts really started and ended, so the request path carries no tracing code at all.
 * Attributes name routes, models, providers, statuses and token counts; never prompt or answer
 * text, API keys or user ids.
 */
export class GatewayTracing implements CompletionObserver {
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;
  private readonly propagator = new W3CTraceContextPropagator();
  /** Open request spans by request id, from onRequest until the response closes. */
  private readonly open = new Map<string, Span>();

  constructor(settings: TracingSettings, exporter?: SpanExporter) {
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio) }),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter:
            exporter ?? new OTLPTraceExporter({ url: settings.endpoint ?? undefined, headers: settings.headers }),
          scheduledDelayMillis: 1000,
        }),
      ],
    });
    this.tracer = this.provider.getTracer('llm-gateway');
  }

  register(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      const route = request.routeOptions.url;
      const parent = this.propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
      const span = this.tracer.startSpan(
        `${request.method} ${route ?? 'unmatched route'}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': request.method,
            'http.route': route ?? '',
            'gateway.request_id': request.id,
          },
        },
        parent,
      );
      if (!this.open.has(request.id)) this.open.set(request.id, span);
      reply.raw.once('close', () => {
        const status = reply.raw.statusCode;
        span.setAttribute('http.response.status_code', status);
        if (!reply.raw.writableFinished) span.setAttribute('gateway.client_aborted', true);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        if (this.open.get(request.id) === span) this.open.delete(request.id);
      });
      done();
    });
  }

  onCompletion(outcome: CompletionOutcome): void {
    const span = this.open.get(outcome.requestId);
    if (!span || !span.isRecording()) return;
    span.setAttributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': outcome.requestedModel,
      'gateway.streamed': outcome.streamed,
      'gateway.attempts': outcome.attempts.length,
    });
    if (outcome.modelId) span.setAttribute('gen_ai.response.model', outcome.modelId);
    if (outcome.providerId) span.setAttribute('gen_ai.provider.name', outcome.providerId);
    if (outcome.errorCode) span.setAttribute('error.type', outcome.errorCode);
    if (outcome.timeToFirstTokenMs !== null)
      span.setAttribute('gateway.time_to_first_token_ms', outcome.timeToFirstTokenMs);
    if (outcome.usage) {
      span.setAttribute('gen_ai.usage.input_tokens', outcome.usage.prompt_tokens ?? 0);
      span.setAttribute('gen_ai.usage.output_tokens', outcome.usage.completion_tokens ?? 0);
    }
    const parent = trace.setSpan(ROOT_CONTEXT, span);
    for (const attempt of outcome.attempts) {
      const child = this.tracer.startSpan(
        `upstream ${attempt.providerId}`,
        {
          kind: SpanKind.CLIENT,
          startTime: attempt.startedAt,
          attributes: {
            'gen_ai.provider.name': attempt.providerId,
            'gen_ai.request.model': attempt.upstreamModel,
            'gateway.model': attempt.modelId,
            'http.response.status_code': attempt.status,
          },
        },
        parent,
      );
      if (attempt.errorCode) {
        child.setAttribute('error.type', attempt.errorCode);
        child.setStatus({ code: SpanStatusCode.ERROR, message: attempt.errorCode });
      }
      child.end(attempt.startedAt + attempt.latencyMs);
    }
  }

  /** Sends what is buffered (tests, and before shutdown). */
  async flush(): Promise<void> {
    await this.provider.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}
