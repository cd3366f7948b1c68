import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildEmbeddingsAnswer, mockEmbeddingVector } from '../../src/mock-upstream/mock-embeddings.js';

export interface FakeRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/** Answers one request in a provider's own wire format, or undefined to fall through. */
export type FakeRoute = (request: FakeRequest) => FakeAnswer | undefined;

export interface ProtocolFakes {
  /** http://127.0.0.1:PORT (no path). */
  url: string;
  requests: FakeRequest[];
  /** Answer the next requests with this instead (failures: 429, 500…); null restores the fakes. */
  override(answer: ((request: FakeRequest) => FakeAnswer | undefined) | null): void;
  close(): Promise<void>;
}

const json = (body: unknown, status = 200): FakeAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Gemini batchEmbedContents: {requests: [{content: {parts: [{text}]}, outputDimensionality}]} → {embeddings: [{values}]}. */
export const geminiEmbeddingsRoute: FakeRoute = (request) => {
  if (!/\/models\/[^/]+:batchEmbedContents$/.test(request.url)) return undefined;
  const entries = request.body?.requests ?? [];
  return json({
    embeddings: entries.map((entry: any) => ({
      values: mockEmbeddingVector(
        entry.content.parts.map((part: any) => part.text).join(''),
        entry.outputDimensionality ?? 8,
      ),
    })),
  });
};

/** Bedrock InvokeModel: Titan ({inputText} → {embedding, inputTextTokenCount}) and Cohere ({texts} → {embeddings}). */
export const bedrockEmbeddingsRoute: FakeRoute = (request) => {
  const match = /^\/model\/([^/]+)\/invoke$/.exec(request.url);
  if (!match) return undefined;
  const model = decodeURIComponent(match[1]);
  if (model.includes('cohere.embed')) {
    return json({
      id: 'fake',
      response_type: 'embeddings_floats',
      texts: request.body.texts,
      embeddings: request.body.texts.map((text: string) =>
        mockEmbeddingVector(text, request.body.output_dimension ?? 8),
      ),
    });
  }
  const text: string = request.body.inputText;
  return json({
    embedding: mockEmbeddingVector(text, request.body.dimensions ?? 8),
    inputTextTokenCount: text.split(/\s+/).filter(Boolean).length,
  });
};

/** Ollama /api/embed: {input: [..]} → {embeddings, prompt_eval_count}. */
export const ollamaEmbeddingsRoute: FakeRoute = (request) => {
  if (request.url !== '/api/embed') return undefined;
  const texts: string[] = Array.isArray(request.body.input) ? request.body.input : [request.body.input];
  return json({
    model: request.body.model,
    embeddings: texts.map((text) => mockEmbeddingVector(text, request.body.dimensions ?? 8)),
    prompt_eval_count: texts.reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0),
  });
};

/** OpenAI /v1/embeddings, as the project's fake upstream answers it. */
export const openAIEmbeddingsRoute: FakeRoute = (request) => {
  if (!request.url.endsWith('/embeddings')) return undefined;
  const answer = buildEmbeddingsAnswer(request.body);
  return json(answer.body, answer.status);
};

/**
 * One local server that speaks several providers' protocols, each route answering in that
 * provider's own wire format, and records every request.
 */
export async function startProtocolFakes(routes: FakeRoute[]): Promise<ProtocolFakes> {
  const requests: FakeRequest[] = [];
  let overrideAnswer: ((request: FakeRequest) => FakeAnswer | undefined) | null = null;
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // recorded as text
      }
      const recorded: FakeRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      };
      requests.push(recorded);
      const answer =
        overrideAnswer?.(recorded) ??
        routes.reduce<FakeAnswer | undefined>((found, route) => found ?? route(recorded), undefined) ??
        json({ error: { message: `no fake for ${recorded.method} ${recorded.url}` } }, 404);
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    override(answer) {
      overrideAnswer = answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
