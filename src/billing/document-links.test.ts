import { describe, expect, it } from 'vitest';
import { checkDocumentLink, signDocumentPath } from './document-links.js';

function parts(path: string) {
  const url = new URL(path, 'http://x');
  return {
    id: url.pathname.split('/').pop()!.replace('.pdf', ''),
    expires: url.searchParams.get('expires')!,
    signature: url.searchParams.get('signature')!,
  };
}

describe('document links', () => {
  const now = 1_700_000_000_000;
  const link = parts(signDocumentPath('secret', 'doc_1', now / 1000 + 3600));

  it('accepts its own link until it expires', () => {
    expect(checkDocumentLink('secret', link.id, link.expires, link.signature, now)).toBe('valid');
    expect(checkDocumentLink('secret', link.id, link.expires, link.signature, now + 3600_000)).toBe('expired');
  });

  it('rejects a changed id, expiry, signature or secret', () => {
    expect(checkDocumentLink('secret', 'doc_2', link.expires, link.signature, now)).toBe('invalid');
    expect(checkDocumentLink('secret', link.id, String(Number(link.expires) + 1), link.signature, now)).toBe('invalid');
    expect(checkDocumentLink('secret', link.id, link.expires, link.signature.slice(0, -1) + 'A', now)).toBe('invalid');
    expect(checkDocumentLink('other', link.id, link.expires, link.signature, now)).toBe('invalid');
    expect(checkDocumentLink('secret', link.id, undefined, link.signature, now)).toBe('invalid');
    expect(checkDocumentLink('secret', link.id, '1e9', link.signature, now)).toBe('invalid');
  });
});
