import { describe, expect, it } from 'vitest';
import { codeSnippets } from './code-snippets';

describe('codeSnippets', () => {
  it('fills in the gateway address and the model, the key from the environment unless given', () => {
    const [curl, typescript, python] = codeSnippets('http://127.0.0.1:8080', 'mock/chat');
    expect(curl.code).toContain('curl http://127.0.0.1:8080/v1/chat/completions');
    expect(curl.code).toContain('"model": "mock/chat"');
    expect(curl.code).toContain('Bearer $GATEWAY_API_KEY');
    expect(typescript.code).toContain("baseURL: 'http://127.0.0.1:8080/v1', apiKey: process.env.GATEWAY_API_KEY");
    expect(python.code).toContain('api_key=os.environ["GATEWAY_API_KEY"]');
    expect(codeSnippets('http://x', 'm', 'sk-gw-1')[1].code).toContain('apiKey: "sk-gw-1"');
  });
});
