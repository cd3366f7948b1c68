import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../shared/logger.js';
import { lazyRequestLogger } from './lazy-request-logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger('info', destination) };
}

describe('lazyRequestLogger', () => {
  it('makes no pino child until the request logs', () => {
    const { logger } = capture();
    const child = vi.spyOn(logger, 'child');
    const requestLog = lazyRequestLogger(logger, { reqId: 'r1' }, {});
    expect(child).not.toHaveBeenCalled();
    expect(requestLog.level).toBe('info');
  });

  it('logs the lines a pino child would, bound to the request id, through one child', async () => {
    const { logger, lines } = capture();
    const child = vi.spyOn(logger, 'child');
    const requestLog = lazyRequestLogger(logger, { reqId: 'r1' }, {});
    requestLog.warn({ code: 'upstream_timeout' }, 'upstream failure');
    requestLog.error('second');
    requestLog.debug('below the level: not written');
    await new Promise((resolve) => setImmediate(resolve));
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ reqId: 'r1', code: 'upstream_timeout', msg: 'upstream failure' });
    expect(JSON.parse(lines[1]!)).toMatchObject({ reqId: 'r1', msg: 'second' });
  });
});
