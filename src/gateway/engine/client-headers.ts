import type { FastifyRequest } from 'fastify';

/** The named client headers that are present, as single strings (repeated headers joined by commas). */
export function headersOf(request: FastifyRequest, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') picked[name] = value;
    else if (Array.isArray(value) && value.length > 0) picked[name] = value.join(',');
  }
  return picked;
}
