import { passThroughCode } from '../../shared/error-codes.js';
import { GatewayError, UpstreamClientError, UpstreamError } from '../../shared/errors.js';
import { mapOpenAIError } from '../openai/openai-error.js';

/**
 * Bedrock HTTP errors are `{"message": "..."}` with the exception name in `x-amzn-errortype`
 * ("ValidationException:http://…"). The status decides the class, as for every provider; the
 * exception name becomes the code so operators can tell throttling from a bad model id.
 */
export function mapBedrockError(
  status: number,
  body: Uint8Array,
  headers: Record<string, string | string[] | undefined>,
  providerName: string,
): GatewayError {
  const mapped = mapOpenAIError(status, body, headers, providerName);
  const errorType = headerValue(headers['x-amzn-errortype'])?.split(':')[0];
  if (!errorType || !/^[A-Za-z]+$/.test(errorType)) return mapped;
  const code = passThroughCode(snakeCase(errorType));
  if (mapped instanceof UpstreamClientError) {
    return new UpstreamClientError(mapped.status, mapped.type, code, mapped.message, mapped.param, mapped.headers);
  }
  return new UpstreamError(mapped.status as 502 | 503 | 504, code, mapped.message, { headers: mapped.headers });
}

/** An exception frame in the middle of a ConverseStream (`:message-type: exception`). */
export function mapBedrockStreamException(exceptionType: string, message: string, providerName: string): GatewayError {
  const text = `${providerName}: ${message || exceptionType}`;
  const code = passThroughCode(snakeCase(exceptionType));
  switch (exceptionType) {
    case 'throttlingException':
      return new UpstreamClientError(429, 'rate_limit_error', code, text, null);
    case 'validationException':
      return new UpstreamClientError(400, 'invalid_request_error', code, text, null);
    case 'serviceUnavailableException':
      return new UpstreamError(503, code, text);
    case 'modelTimeoutException':
      return new UpstreamError(504, code, text);
    default:
      return new UpstreamError(502, code, text);
  }
}

function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
