import { describe, expect, it } from 'vitest';
import { bedrockAnthropicBody, servesAnthropicMessages } from './bedrock-anthropic-native.js';

describe('Bedrock Anthropic models take the Messages API', () => {
  it.each([
    ['anthropic.claude-3-5-haiku-20241022-v1:0', true],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', true],
    ['global.anthropic.claude-sonnet-4-5-20250929-v1:0', true],
    ['arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0', true],
    ['us.amazon.nova-micro-v1:0', false],
    ['arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3', false],
    ['meta.llama3-70b-instruct-v1:0', false],
  ])('%s → %s', (model, expected) => expect(servesAnthropicMessages(model)).toBe(expected));

  it('the body loses model and stream, takes Bedrock’s version, and the betas from the header', () => {
    const body = { model: 'm', stream: true, max_tokens: 5, messages: [], future_field: { a: 1 } };
    expect(bedrockAnthropicBody({ body, stream: true, clientHeaders: { 'anthropic-beta': 'a-1, b-2' } })).toEqual({
      max_tokens: 5,
      messages: [],
      future_field: { a: 1 },
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['a-1', 'b-2'],
    });
    expect(bedrockAnthropicBody({ body, stream: false, clientHeaders: {} })).not.toHaveProperty('anthropic_beta');
  });
});
