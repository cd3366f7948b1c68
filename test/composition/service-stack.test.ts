import { describe, expect, it } from 'vitest';
import { ServiceStack } from '../../src/composition/service-stack.js';

describe('ServiceStack', () => {
  it('stops services in reverse start order, once', async () => {
    const events: string[] = [];
    const stack = new ServiceStack();
    for (const name of ['a', 'b', 'c']) {
      await stack.start(
        name,
        () => events.push(`start ${name}`),
        () => events.push(`stop ${name}`),
      );
    }
    await Promise.all([stack.stop(), stack.stop()]);
    await stack.stop();
    expect(events).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  });

  it('a failed start-up stops what had started, in reverse, and rethrows', async () => {
    const stopped: string[] = [];
    const stack = new ServiceStack();
    const failure = stack.build(async (started) => {
      await started.start(
        'store',
        () => 'store',
        () => stopped.push('store'),
      );
      await started.start(
        'cache',
        () => 'cache',
        () => stopped.push('cache'),
      );
      await started.start(
        'broken',
        () => {
          throw new Error('port in use');
        },
        () => stopped.push('broken'),
      );
    });
    await expect(failure).rejects.toThrow('port in use');
    expect(stopped).toEqual(['cache', 'store']);
  });

  it('a stop that throws is reported and the others still stop', async () => {
    const stopped: string[] = [];
    const errors: string[] = [];
    const stack = new ServiceStack((name, error) => errors.push(`${name}: ${(error as Error).message}`));
    await stack.start(
      'first',
      () => 1,
      () => stopped.push('first'),
    );
    await stack.start(
      'second',
      () => 2,
      () => {
        throw new Error('already gone');
      },
    );
    await stack.stop();
    expect(stopped).toEqual(['first']);
    expect(errors).toEqual(['second: already gone']);
  });

  it('a listener that throws after a start fails the start-up there, that service included', async () => {
    const stopped: string[] = [];
    const stack = new ServiceStack(undefined, {
      started: (name) => {
        if (name === 'two') throw new Error('injected');
      },
      stopped: (name) => stopped.push(name),
    });
    const failure = stack.build(async (started) => {
      for (const name of ['one', 'two', 'three'])
        await started.start(
          name,
          () => name,
          () => undefined,
        );
    });
    await expect(failure).rejects.toThrow('injected');
    expect(stopped).toEqual(['two', 'one']);
  });
});
