import { InvalidRequestError } from '../shared/errors.js';

/** Where a page of the activity list ends: the last row's time and id (rows are newest first). */
export interface ActivityCursor {
  createdAt: number;
  id: string;
}

/**
 * The cursor as the client carries it (pure): opaque base64url text, so that its inside can
 * change without a client noticing. Keyset, not offset: a page stays the same under inserts, and
 * the thousandth page costs what the first does.
 */
export function encodeActivityCursor(cursor: ActivityCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), 'utf8').toString('base64url');
}

/** The cursor back from the client's text; anything that is not one we made is a 400 naming `cursor`. */
export function decodeActivityCursor(text: string): ActivityCursor {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]{1,400}$/.test(text) ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) : null;
  } catch {
    parsed = null;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    Number.isSafeInteger(parsed[0]) &&
    typeof parsed[1] === 'string' &&
    parsed[1].length > 0 &&
    parsed[1].length <= 200
  )
    return { createdAt: parsed[0], id: parsed[1] };
  throw new InvalidRequestError('cursor is not a cursor this API returned.', 'cursor');
}
