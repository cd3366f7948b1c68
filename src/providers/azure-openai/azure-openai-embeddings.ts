import { openAICompatibleEmbeddings } from '../openai/openai-embeddings.js';
import { azureChatCompletionsUrl } from './azure-openai-url.js';

/** Azure OpenAI embeddings: OpenAI's body, on the deployment's /embeddings beside /chat/completions. */
export const azureOpenAIEmbeddings = openAICompatibleEmbeddings(
  'azure-openai',
  (provider, deployment) => azureChatCompletionsUrl(provider, deployment).replace('/chat/completions', '/embeddings'),
  'api-key',
);
