import { describe, expect, it } from 'vitest';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS, gatewayEnv, workerExecArgv } from './gateway-node-flags.js';

describe('workerExecArgv (serve --workers)', () => {
  it('gives workers the gateway flags when the primary started without a young-generation size', () => {
    expect(workerExecArgv([])).toEqual([...GATEWAY_NODE_FLAGS]);
    expect(workerExecArgv(['--enable-source-maps'], '--max-old-space-size=512')).toEqual([
      '--enable-source-maps',
      ...GATEWAY_NODE_FLAGS,
    ]);
  });

  it('keeps a size chosen on the command line or in NODE_OPTIONS', () => {
    expect(workerExecArgv(['--max-semi-space-size=64'])).toEqual(['--max-semi-space-size=64']);
    expect(workerExecArgv(['--max-semi-space-size', '8'])).toEqual(['--max-semi-space-size', '8']);
    expect(workerExecArgv([], '--max-old-space-size=512 --max-semi-space-size=16')).toEqual([]);
  });
});

describe("gatewayEnv (serve --workers, the benchmark's gateway child)", () => {
  it("caps glibc malloc arenas when the launcher's environment does not say otherwise", () => {
    expect(GATEWAY_ENV).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(gatewayEnv({ PATH: '/bin' })).toEqual({ MALLOC_ARENA_MAX: '2' });
  });

  it("keeps a value the launcher's environment sets, even an empty one", () => {
    expect(gatewayEnv({ MALLOC_ARENA_MAX: '8' })).toEqual({});
    expect(gatewayEnv({ MALLOC_ARENA_MAX: '' })).toEqual({});
  });
});
