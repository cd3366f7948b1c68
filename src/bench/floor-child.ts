/**
 * The floor: the smallest proxy that does the same hop as our gateway (Fastify in, undici out, to
 * the same upstream), with no authentication, routing, metering or translation. Every figure of
 * the benchmark is also shown as a multiple of this one, so what is ours stands apart from what
 * any Node.js proxy pays. Reports { url } over IPC; stops on a 'stop' message.
 */
import Fastify from 'fastify';
import { Pool } from 'undici';

const upstreamUrl = process.env.BENCH_UPSTREAM_URL;
if (!upstreamUrl) throw new Error('BENCH_UPSTREAM_URL is not set');
const upstream = new URL(upstreamUrl);
const pool = new Pool(upstream.origin, { connections: 4096, pipelining: 1 });
const app = Fastify({ logger: false });
// Bodies pass through as bytes: parsing them is work a proxy does not have to do.
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
app.post<{ Body: Buffer }>('/v1/chat/completions', async (request, reply) => {
  const answer = await pool.request({
    path: `${upstream.pathname}/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: request.body,
  });
  reply.code(answer.statusCode);
  const type = answer.headers['content-type'];
  if (typeof type === 'string') reply.header('content-type', type);
  return reply.send(answer.body);
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ type: 'ready', url });
const stop = () =>
  void app
    .close()
    .then(() => pool.close())
    .finally(() => process.exit(0));
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'stop') stop();
});
process.on('disconnect', stop);
