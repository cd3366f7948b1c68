/**
 * The fake upstream in a process of its own, so the gateway under test, the load generator and
 * the upstream never share an event loop. Reports its URL over IPC; stops on a 'stop' message.
 */
import { startMockUpstream, type MockScenario } from '../mock-upstream/mock-upstream.js';
import { ANSWER_SHAPE, BENCH_MODELS, type UpstreamGaps } from './bench-models.js';

const gaps = JSON.parse(process.env.BENCH_UPSTREAM_GAPS ?? '{}') as UpstreamGaps;
const scenarios: Record<string, MockScenario> = {
  [BENCH_MODELS.fast]: { ...ANSWER_SHAPE },
  [BENCH_MODELS.firstToken]: { ...ANSWER_SHAPE, chunkGapMs: gaps.firstTokenGapMs },
  [BENCH_MODELS.longOpen]: { ...ANSWER_SHAPE, chunkGapMs: gaps.longOpenGapMs },
};

const upstream = await startMockUpstream({
  port: 0,
  recordRequests: false,
  scenario: (body: { model?: string }) => scenarios[body?.model ?? ''] ?? ANSWER_SHAPE,
});
process.send?.({ type: 'ready', url: upstream.url });
process.on('message', (message: { type?: string }) => {
  if (message?.type === 'stop') void upstream.close().then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
