import type { ProviderAdapter } from './provider-adapter.js';
import { openAIAdapter } from './openai/openai-adapter.js';
import { anthropicAdapter } from './anthropic/anthropic-adapter.js';
import { geminiAdapter } from './gemini/gemini-adapter.js';
import { bedrockAdapter } from './bedrock/bedrock-adapter.js';
import { azureOpenAIAdapter } from './azure-openai/azure-openai-adapter.js';
import { ollamaAdapter } from './ollama/ollama-adapter.js';

/** Wire protocols by config `type`. Data, not branches: add an adapter here and nowhere else. */
export type ProviderRegistry = ReadonlyMap<string, ProviderAdapter>;

export function createProviderRegistry(extra: ProviderAdapter[] = []): ProviderRegistry {
  const adapters = [
    openAIAdapter,
    anthropicAdapter,
    geminiAdapter,
    bedrockAdapter,
    azureOpenAIAdapter,
    ollamaAdapter,
    ...extra,
  ];
  return new Map(adapters.map((adapter) => [adapter.type, adapter]));
}
