import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed, expiring document URLs: whoever holds the link may download the PDF until it expires,
 * with no other credentials (like an S3 presigned URL). The signature covers the document id and
 * the expiry, so neither can be changed.
 */
export function signDocumentPath(secret: string, documentId: string, expiresAtSeconds: number): string {
  return `/api-account/billing/documents/${documentId}.pdf?expires=${expiresAtSeconds}&signature=${signature(secret, documentId, expiresAtSeconds)}`;
}

export type LinkCheck = 'valid' | 'expired' | 'invalid';

export function checkDocumentLink(
  secret: string,
  documentId: string,
  expires: string | undefined,
  given: string | undefined,
  nowMs: number,
): LinkCheck {
  if (!expires || !/^\d{1,12}$/.test(expires) || !given) return 'invalid';
  const expected = Buffer.from(signature(secret, documentId, Number(expires)));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return 'invalid';
  return Number(expires) * 1000 <= nowMs ? 'expired' : 'valid';
}

function signature(secret: string, documentId: string, expiresAtSeconds: number): string {
  return createHmac('sha256', secret).update(`billing-document:${documentId}:${expiresAtSeconds}`).digest('base64url');
}
