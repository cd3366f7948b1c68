import { InvalidRequestError } from '../../shared/errors.js';

/** https only; plain http only where the operator allows it (a local test receiver). */
export function checkWebhookUrl(text: string, allowHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidRequestError('webhook_url is not a URL.', 'webhook_url');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))
    throw new InvalidRequestError('webhook_url must be an https URL.', 'webhook_url');
  if (url.username || url.password)
    throw new InvalidRequestError('webhook_url must not carry credentials.', 'webhook_url');
  return url.toString();
}
