import { describe, expect, it } from 'vitest';
import { clientAppOf, surfaceOf } from './client-app.js';

describe('client app and surface of a request', () => {
  it('reads X-Title and HTTP-Referer (or Referer) as OpenRouter does', () => {
    expect(clientAppOf({ 'x-title': 'Plum Notes', 'http-referer': 'https://plum.example' })).toEqual({
      app: 'Plum Notes',
      appUrl: 'https://plum.example',
    });
    expect(clientAppOf({ referer: 'https://other.example/' })).toEqual({ app: null, appUrl: 'https://other.example/' });
    expect(clientAppOf({})).toEqual({ app: null, appUrl: null });
  });

  it('drops control characters, blanks and text past 200 characters', () => {
    expect(clientAppOf({ 'x-title': ' \u0007 ' }).app).toBeNull();
    expect(clientAppOf({ 'x-title': 'a\u0000b\u001bc' }).app).toBe('abc');
    expect(clientAppOf({ 'x-title': 'x'.repeat(500) }).app).toHaveLength(200);
  });

  it('names the surface by its route', () => {
    expect(surfaceOf('/v1/chat/completions')).toBe('chat');
    expect(surfaceOf('/v1/responses')).toBe('responses');
    expect(surfaceOf('/v1/messages')).toBe('messages');
    expect(surfaceOf('/v1/embeddings')).toBe('embeddings');
    expect(surfaceOf('/v1beta/models/:model_action')).toBe('gemini');
    expect(surfaceOf('/v1/other')).toBe('/v1/other');
    expect(surfaceOf(undefined)).toBeNull();
  });
});
