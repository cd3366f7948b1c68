import type { IncomingHttpHeaders } from 'node:http';

/** Longest app name or URL kept: a header is the client's text, and the activity list shows it. */
const MAX_APP_TEXT = 200;

/**
 * The client app as OpenRouter reads it (pure): its name from X-Title, its URL from HTTP-Referer
 * (or Referer). Control characters are dropped and the text is cut at MAX_APP_TEXT; absent or
 * blank headers give null.
 */
export function clientAppOf(headers: IncomingHttpHeaders): { app: string | null; appUrl: string | null } {
  return {
    app: cleanHeader(headers['x-title']),
    appUrl: cleanHeader(headers['http-referer'] ?? headers.referer),
  };
}

function cleanHeader(value: string | string[] | undefined): string | null {
  const text = (Array.isArray(value) ? value[0] : value)
    ?.replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, MAX_APP_TEXT);
  return text ? text : null;
}

const SURFACES: Record<string, string> = {
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/messages': 'messages',
  '/v1/embeddings': 'embeddings',
};

/**
 * The API surface a route serves, by its URL pattern (pure): chat, responses, messages,
 * embeddings; a Gemini route (/v1beta/…) is `gemini`; any other route is named by its own pattern.
 */
export function surfaceOf(routeUrl: string | undefined): string | null {
  if (!routeUrl) return null;
  if (SURFACES[routeUrl]) return SURFACES[routeUrl];
  // Google's API lives under /v1beta (generateContent, streamGenerateContent, embedContent, …).
  if (routeUrl.startsWith('/v1beta/')) return 'gemini';
  return routeUrl;
}
