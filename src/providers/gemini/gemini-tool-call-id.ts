/**
 * Gemini gives function calls no id (we make one, stable within a response) and, on Gemini 3,
 * a thoughtSignature that must come back with the call in the next turn. OpenAI clients keep
 * only the tool call id between turns, so the signature travels inside it:
 * `<id>.sig.<signature as base64url>`. Ids without the marker are plain ids.
 */
const SIGNATURE_MARKER = '.sig.';

export function encodeGeminiToolCallId(id: string, thoughtSignature: string | undefined): string {
  if (!thoughtSignature) return id;
  const base64url = thoughtSignature.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${id}${SIGNATURE_MARKER}${base64url}`;
}

export function decodeGeminiToolCallId(toolCallId: string): { id: string; thoughtSignature?: string } {
  const at = toolCallId.indexOf(SIGNATURE_MARKER);
  if (at === -1) return { id: toolCallId };
  const base64url = toolCallId.slice(at + SIGNATURE_MARKER.length);
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  return { id: toolCallId.slice(0, at), thoughtSignature: base64 + '='.repeat((4 - (base64.length % 4)) % 4) };
}
