import { nanosToUsd } from '../../metering/money.js';
import type { ActivityRow } from '../../metering/activity-query.js';

type Cell = string | number | boolean | null;

/** The export's columns, in order, and how each reads a row. `user` marks text a client wrote. */
const COLUMNS: Array<{ name: string; value: (row: ActivityRow) => Cell; user?: true }> = [
  { name: 'created_at', value: (row) => new Date(row.createdAt).toISOString() },
  { name: 'request_id', value: (row) => row.requestId, user: true },
  { name: 'id', value: (row) => row.id },
  { name: 'key_id', value: (row) => row.keyId },
  { name: 'key_name', value: (row) => row.keyName, user: true },
  { name: 'requested_model', value: (row) => row.requestedModel, user: true },
  { name: 'model', value: (row) => row.modelId },
  { name: 'provider', value: (row) => row.providerId },
  { name: 'upstream_model', value: (row) => row.upstreamModel },
  { name: 'surface', value: (row) => row.surface },
  { name: 'app', value: (row) => row.app, user: true },
  { name: 'app_url', value: (row) => row.appUrl, user: true },
  { name: 'streamed', value: (row) => row.streamed },
  { name: 'prompt_tokens', value: (row) => row.promptTokens },
  { name: 'cached_tokens', value: (row) => row.cachedTokens },
  { name: 'cache_write_tokens', value: (row) => row.cacheWriteTokens },
  { name: 'completion_tokens', value: (row) => row.completionTokens },
  { name: 'reasoning_tokens', value: (row) => row.reasoningTokens },
  { name: 'total_tokens', value: (row) => row.totalTokens },
  { name: 'tokens_estimated', value: (row) => row.tokensEstimated },
  { name: 'cost_usd', value: (row) => nanosToUsd(row.costNanos) },
  { name: 'cost_nanos', value: (row) => row.costNanos },
  { name: 'latency_ms', value: (row) => row.latencyMs },
  { name: 'time_to_first_token_ms', value: (row) => row.timeToFirstTokenMs },
  { name: 'tokens_per_second', value: (row) => row.tokensPerSecond },
  { name: 'status', value: (row) => row.status },
  { name: 'error_code', value: (row) => row.errorCode },
  { name: 'client_aborted', value: (row) => row.clientAborted },
  { name: 'attempt_count', value: (row) => row.attemptCount },
];

export function activityCsvHeader(): string {
  return `${COLUMNS.map((column) => column.name).join(',')}\r\n`;
}

/** One request as a CSV line (RFC 4180, CRLF). */
export function activityCsvLine(row: ActivityRow): string {
  return `${COLUMNS.map((column) => csvCell(column.value(row), column.user === true)).join(',')}\r\n`;
}

/**
 * Quoted when it holds a comma, quote or line break. Text a client wrote that starts with
 * = + - @ is prefixed with ' so that a spreadsheet does not run it as a formula.
 */
function csvCell(value: Cell, userText = false): string {
  if (value === null) return '';
  let text = String(value);
  if (userText && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
