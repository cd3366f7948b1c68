/** Ready-to-run calls of one model through this gateway: curl, the openai SDK in TypeScript and Python. */
export function codeSnippets(baseUrl: string, modelId: string, apiKey = '$GATEWAY_API_KEY') {
  const keyInCode = apiKey.startsWith('$') ? 'process.env.GATEWAY_API_KEY' : JSON.stringify(apiKey);
  const keyInPython = apiKey.startsWith('$') ? 'os.environ["GATEWAY_API_KEY"]' : JSON.stringify(apiKey);
  return [
    {
      id: 'curl',
      label: 'curl',
      code: `curl ${baseUrl}/v1/chat/completions \\
  -H "Authorization: Bearer ${apiKey}" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "${modelId}", "messages": [{"role": "user", "content": "Hello"}]}'`,
    },
    {
      id: 'typescript',
      label: 'TypeScript',
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '${baseUrl}/v1', apiKey: ${keyInCode} });
const answer = await client.chat.completions.create({
  model: '${modelId}',
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(answer.choices[0].message.content);`,
    },
    {
      id: 'python',
      label: 'Python',
      code: `import os
from openai import OpenAI

client = OpenAI(base_url="${baseUrl}/v1", api_key=${keyInPython})
answer = client.chat.completions.create(
    model="${modelId}",
    messages=[{"role": "user", "content": "Hello"}],
)
print(answer.choices[0].message.content)`,
    },
  ];
}
