import { describe, expect, it } from 'vitest';
import { ChatStreamParser, turnCost } from './chat-stream';

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;

describe('ChatStreamParser', () => {
  it('yields deltas, usage and the end, even when a frame is split across network chunks', () => {
    const parser = new ChatStreamParser();
    const whole =
      chunk('Hel') +
      chunk('lo') +
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n` +
      'data: [DONE]\n\n';
    const events = [whole.slice(0, 17), whole.slice(17, 60), whole.slice(60)].flatMap((part) => parser.push(part));
    expect(events).toEqual([
      { kind: 'delta', text: 'Hel' },
      { kind: 'delta', text: 'lo' },
      { kind: 'usage', usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
      { kind: 'done' },
    ]);
  });

  it('turns the gateway’s `event: error` frame into an error with its message', () => {
    const parser = new ChatStreamParser();
    const frame = `event: error\r\ndata: {"error":{"message":"upstream stopped early","type":"api_error","code":"upstream_error","param":null}}\r\n\r\n`;
    expect(parser.push(chunk('a') + frame)).toEqual([
      { kind: 'delta', text: 'a' },
      { kind: 'error', message: 'upstream stopped early' },
    ]);
  });

  it('ignores comments and keeps an unfinished frame for later', () => {
    const parser = new ChatStreamParser();
    expect(parser.push(': keep-alive\n\ndata: {"choices":[{"delta":{"content":"x"}}]}')).toEqual([]);
    expect(parser.push('\n\n')).toEqual([{ kind: 'delta', text: 'x' }]);
  });
});

describe('turnCost', () => {
  it('prices prompt and completion tokens per million, unknown prices give no cost', () => {
    expect(
      turnCost(
        { prompt_tokens: 1000, completion_tokens: 2000, total_tokens: 3000 },
        { prompt: '0.5', completion: '1.5' },
      ),
    ).toBeCloseTo(0.0035, 10);
    expect(
      turnCost({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, { prompt: null, completion: '1' }),
    ).toBeNull();
  });
});
