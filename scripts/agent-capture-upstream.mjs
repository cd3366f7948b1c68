// A logging fake upstream for coding agents (see docs/agents.md): records every request (method,
// url, headers, body) to a JSONL file and answers "hello" in the protocol the path names
// (Anthropic Messages, OpenAI Responses and chat completions, Gemini), so an agent finishes its
// one-shot prompt. Usage: node scripts/agent-capture-upstream.mjs <log.jsonl> [port]
import { createServer } from 'node:http';
import { appendFileSync } from 'node:fs';
const out = process.argv[2];
const port = Number(process.argv[3] ?? 0);
const sse = (events) => events.map(([e, d]) => (e ? `event: ${e}\n` : '') + `data: ${JSON.stringify(d)}\n\n`).join('');
const server = createServer((req, res) => {
  const parts = [];
  req.on('data', (p) => parts.push(p));
  req.on('end', () => {
    const text = Buffer.concat(parts).toString('utf8');
    let body = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {}
    appendFileSync(out, JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }) + '\n');
    const url = req.url ?? '';
    if (url.includes('/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"input_tokens":12}');
    }
    if (url.includes('/messages')) {
      const model = body?.model ?? 'claude';
      if (!body?.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model,
            content: [{ type: 'text', text: 'hello' }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 2 },
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end(
        sse([
          [
            'message_start',
            {
              type: 'message_start',
              message: {
                id: 'msg_1',
                type: 'message',
                role: 'assistant',
                model,
                content: [],
                stop_reason: null,
                stop_sequence: null,
                usage: { input_tokens: 10, output_tokens: 1 },
              },
            },
          ],
          ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
          [
            'content_block_delta',
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hello' } },
          ],
          ['content_block_stop', { type: 'content_block_stop', index: 0 }],
          [
            'message_delta',
            {
              type: 'message_delta',
              delta: { stop_reason: 'end_turn', stop_sequence: null },
              usage: { output_tokens: 2 },
            },
          ],
          ['message_stop', { type: 'message_stop' }],
        ]),
      );
    }
    if (url.includes('/chat/completions')) {
      const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body?.model ?? 'gpt' };
      const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 };
      if (!body?.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            ...head,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
            usage,
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end(
        sse([
          [
            null,
            { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'hello' }, finish_reason: null }] },
          ],
          [null, { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }],
          [null, { ...head, choices: [], usage }],
        ]) + 'data: [DONE]\n\n',
      );
    }
    if (url.includes('/responses')) {
      const model = body?.model ?? 'gpt';
      const item = {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'hello', annotations: [] }],
      };
      const response = {
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        status: 'completed',
        model,
        output: [item],
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 2,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 12,
        },
      };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end(
        sse([
          [
            'response.created',
            {
              type: 'response.created',
              sequence_number: 0,
              response: { ...response, status: 'in_progress', output: [] },
            },
          ],
          [
            'response.output_item.added',
            {
              type: 'response.output_item.added',
              sequence_number: 1,
              output_index: 0,
              item: { ...item, status: 'in_progress', content: [] },
            },
          ],
          [
            'response.output_text.delta',
            {
              type: 'response.output_text.delta',
              sequence_number: 2,
              item_id: 'msg_1',
              output_index: 0,
              content_index: 0,
              delta: 'hello',
            },
          ],
          [
            'response.output_item.done',
            { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item },
          ],
          ['response.completed', { type: 'response.completed', sequence_number: 4, response }],
        ]),
      );
    }
    if (url.includes(':streamGenerateContent') || url.includes(':generateContent')) {
      const chunk = {
        candidates: [{ content: { role: 'model', parts: [{ text: 'hello' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
        modelVersion: 'gemini',
      };
      if (url.includes(':generateContent')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(chunk));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    }
    if (url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"totalTokens":12}');
    }
    if (url.includes('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ data: [], models: [] }));
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found"}}');
  });
});
server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
