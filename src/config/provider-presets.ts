/**
 * Known providers as data. A preset gives the wire protocol, the default base URL and the
 * standard credential variable; setting that variable enables the provider with no config file.
 * Generic code never names a provider: everything provider-specific lives here or in
 * providers/<protocol>/.
 */
export interface ProviderPreset {
  name: string;
  type: string;
  baseUrl: string;
  /** Environment variable holding the credential; its presence enables the preset. */
  credentialEnv?: string;
  /** Local servers need no credential; they are enabled only from the config file. */
  local?: boolean;
  /** A variable whose value is the base URL (Azure's per-resource endpoint); without it the preset stays off. */
  baseUrlEnv?: string;
  /** Provider options read from the environment: option name → variables, the first one set wins. */
  optionsFromEnv?: Record<string, string[]>;
}

export const PROVIDER_PRESETS: Record<string, ProviderPreset> = {
  openai: { name: 'OpenAI', type: 'openai', baseUrl: 'https://api.openai.com/v1', credentialEnv: 'OPENAI_API_KEY' },
  anthropic: {
    name: 'Anthropic',
    type: 'anthropic',
    baseUrl: 'https://api.anthropic.com/v1',
    credentialEnv: 'ANTHROPIC_API_KEY',
  },
  gemini: {
    name: 'Google AI Studio',
    type: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    credentialEnv: 'GEMINI_API_KEY',
  },
  groq: { name: 'Groq', type: 'openai', baseUrl: 'https://api.groq.com/openai/v1', credentialEnv: 'GROQ_API_KEY' },
  together: {
    name: 'Together AI',
    type: 'openai',
    baseUrl: 'https://api.together.xyz/v1',
    credentialEnv: 'TOGETHER_API_KEY',
  },
  fireworks: {
    name: 'Fireworks AI',
    type: 'openai',
    baseUrl: 'https://api.fireworks.ai/inference/v1',
    credentialEnv: 'FIREWORKS_API_KEY',
  },
  deepseek: {
    name: 'DeepSeek',
    type: 'openai',
    baseUrl: 'https://api.deepseek.com/v1',
    credentialEnv: 'DEEPSEEK_API_KEY',
  },
  mistral: {
    name: 'Mistral AI',
    type: 'openai',
    baseUrl: 'https://api.mistral.ai/v1',
    credentialEnv: 'MISTRAL_API_KEY',
  },
  xai: { name: 'xAI', type: 'openai', baseUrl: 'https://api.x.ai/v1', credentialEnv: 'XAI_API_KEY' },
  openrouter: {
    name: 'OpenRouter',
    type: 'openai',
    baseUrl: 'https://openrouter.ai/api/v1',
    credentialEnv: 'OPENROUTER_API_KEY',
  },
  cerebras: {
    name: 'Cerebras',
    type: 'openai',
    baseUrl: 'https://api.cerebras.ai/v1',
    credentialEnv: 'CEREBRAS_API_KEY',
  },
  deepinfra: {
    name: 'DeepInfra',
    type: 'openai',
    baseUrl: 'https://api.deepinfra.com/v1/openai',
    credentialEnv: 'DEEPINFRA_API_KEY',
  },
  perplexity: {
    name: 'Perplexity',
    type: 'openai',
    baseUrl: 'https://api.perplexity.ai',
    credentialEnv: 'PERPLEXITY_API_KEY',
  },
  bedrock: {
    name: 'Amazon Bedrock',
    type: 'bedrock',
    baseUrl: 'https://bedrock-runtime.{region}.amazonaws.com',
    credentialEnv: 'AWS_ACCESS_KEY_ID',
    optionsFromEnv: {
      region: ['AWS_REGION', 'AWS_DEFAULT_REGION'],
      access_key_id: ['AWS_ACCESS_KEY_ID'],
      secret_access_key: ['AWS_SECRET_ACCESS_KEY'],
      session_token: ['AWS_SESSION_TOKEN'],
    },
  },
  'azure-openai': {
    name: 'Azure OpenAI',
    type: 'azure-openai',
    baseUrl: '',
    baseUrlEnv: 'AZURE_OPENAI_ENDPOINT',
    credentialEnv: 'AZURE_OPENAI_API_KEY',
    optionsFromEnv: { api_version: ['OPENAI_API_VERSION'] },
  },
  vllm: { name: 'vLLM', type: 'openai', baseUrl: 'http://127.0.0.1:8000/v1', local: true },
  ollama: { name: 'Ollama', type: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', local: true },
  lmstudio: { name: 'LM Studio', type: 'openai', baseUrl: 'http://127.0.0.1:1234/v1', local: true },
};

/** The preset's base URL, from its variable when it has one. */
export function presetBaseUrl(preset: ProviderPreset, env: Record<string, string | undefined>): string {
  return (preset.baseUrlEnv ? env[preset.baseUrlEnv] : undefined) || preset.baseUrl;
}

/** Options the preset reads from the environment (AWS credentials and region, Azure api-version). */
export function presetOptionsFromEnv(
  preset: ProviderPreset | undefined,
  env: Record<string, string | undefined>,
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [option, variables] of Object.entries(preset?.optionsFromEnv ?? {})) {
    const value = variables
      .map((variable) => env[variable])
      .find((candidate) => candidate !== undefined && candidate !== '');
    if (value !== undefined) options[option] = value;
  }
  return options;
}
