import { describe, expect, it } from 'vitest';
import { decodeActivityCursor, encodeActivityCursor } from './activity-cursor.js';

describe('activity cursor', () => {
  it('round-trips a position and is opaque url-safe text', () => {
    const text = encodeActivityCursor({ createdAt: 1_764_000_000_123, id: 'evt_"odd/id' });
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeActivityCursor(text)).toEqual({ createdAt: 1_764_000_000_123, id: 'evt_"odd/id' });
  });

  it.each([
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('{{').toString('base64url')],
    ['wrong shape', Buffer.from('{"a":1}').toString('base64url')],
    ['a fractional time', Buffer.from('[1.5,"x"]').toString('base64url')],
    ['an empty id', Buffer.from('[1,""]').toString('base64url')],
    ['empty', ''],
  ])('refuses %s with a 400 naming cursor', (_name, text) => {
    expect(() => decodeActivityCursor(text)).toThrow(expect.objectContaining({ status: 400, param: 'cursor' }));
  });
});
