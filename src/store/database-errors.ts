/**
 * Whether an error means the database cannot be reached or did not answer in time (as opposed
 * to a query that is wrong): the request is then answered 503 `database_unavailable`, and the
 * pool reconnects by itself once the database is back.
 */
const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error',
  'connection timeout',
];
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_SOCKET_CODES.has(code)) return true;
    // SQLSTATE: 08 connection exception, 57P0x shutdown / cannot connect now, 57014 statement
    // timeout, 53300 too many connections; SQLite: the file is locked past the 5 s of tries
    // (sqlite-dialect.ts), whichever SQLITE_BUSY_* the last try met.
    if (code.startsWith('08') || /^57P0[1-4]$/.test(code) || code === '57014' || code === '53300') return true;
    if (code.startsWith('SQLITE_BUSY') || code === 'SQLITE_LOCKED') return true;
  }
  return UNAVAILABLE_MESSAGES.some((message) => error.message.includes(message));
}

/**
 * PostgreSQL refused a string from the request: a NUL byte (22021) or a character the database
 * encoding cannot hold (22P05). The client's input, so a 400, never a 500.
 */
export function isUnstorableText(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '22021' || code === '22P05';
}
