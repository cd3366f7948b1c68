import type { EmbeddingAdapter, EmbeddingRegistry } from './embedding-adapter.js';
import { openAIEmbeddings } from './openai/openai-embeddings.js';
import { azureOpenAIEmbeddings } from './azure-openai/azure-openai-embeddings.js';
import { geminiEmbeddings } from './gemini/gemini-embeddings.js';
import { bedrockEmbeddings } from './bedrock/bedrock-embeddings.js';
import { ollamaEmbeddings } from './ollama/ollama-embeddings.js';

/** Embedding protocols by provider `type`. Anthropic has no embeddings API, so it is absent. */
export function createEmbeddingRegistry(extra: EmbeddingAdapter[] = []): EmbeddingRegistry {
  const adapters = [
    openAIEmbeddings,
    azureOpenAIEmbeddings,
    geminiEmbeddings,
    bedrockEmbeddings,
    ollamaEmbeddings,
    ...extra,
  ];
  return new Map(adapters.map((adapter) => [adapter.type, adapter]));
}
