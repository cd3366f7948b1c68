import type { ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferResponseEnd } from './defer-response-end.js';

/** A response whose end() only counts: what deferResponseEnd wraps. */
function fakeResponse(calls?: unknown[][]): ServerResponse {
  return {
    end(this: ServerResponse, ...args: unknown[]) {
      calls?.push(args);
      return this;
    },
  } as unknown as ServerResponse;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('deferResponseEnd', () => {
  it('holds the end back until released, then ends once with the same arguments', () => {
    const calls: unknown[][] = [];
    const response = fakeResponse(calls);
    const release = deferResponseEnd(response, 5000);
    expect(response.end('{"answer":1}', 'utf8')).toBe(response);
    expect(calls).toEqual([]);
    release();
    expect(calls).toEqual([['{"answer":1}', 'utf8']]);
    release();
    response.end();
    expect(calls).toEqual([['{"answer":1}', 'utf8'], []]);
  });

  it('ends by itself after the longest wait, and a later release does nothing', () => {
    vi.useFakeTimers();
    const calls: unknown[][] = [];
    const response = fakeResponse(calls);
    const release = deferResponseEnd(response, 5000);
    response.end('last');
    vi.advanceTimersByTime(4999);
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual([['last']]);
    release();
    expect(calls).toEqual([['last']]);
  });

  it('released before the end: the end goes through at once', () => {
    const calls: unknown[][] = [];
    const response = fakeResponse(calls);
    deferResponseEnd(response, 5000)();
    response.end('now');
    expect(calls).toEqual([['now']]);
  });

  // The release function outlives the request in long-lived hash tables (and V8 keeps a resized
  // table's old copy until a full collection): once released, it must not reach the response or
  // the held answer, or every scavenge keeps and promotes them (docs/benchmarks.md).
  it('once released, the release function no longer keeps the response or the held answer alive', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const kept: Array<() => void> = [];
    const refs = (() => {
      const response = fakeResponse();
      const answer = { body: 'x'.repeat(10_000) };
      kept.push(deferResponseEnd(response, 5000));
      response.end(answer);
      kept[0]!();
      return { response: new WeakRef(response), answer: new WeakRef(answer) };
    })();
    // WeakRef targets stay alive until the current job ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(kept).toHaveLength(1);
    expect(refs.response.deref()).toBeUndefined();
    expect(refs.answer.deref()).toBeUndefined();
  });
});
