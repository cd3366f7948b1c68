import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorCodeForms, passThroughCode, type ErrorCode } from './error-codes.js';
import {
  AuthenticationError,
  GatewayError,
  InsufficientCreditsError,
  InternalError,
  InvalidRequestError,
  PayloadTooLargeError,
} from './errors.js';

const ERRORS_DOC = new URL('../../docs/errors.md', import.meta.url);

/** The rows of the code table in docs/errors.md: | `code` | status | type | when | */
function documentedForms(markdown: string): string[] {
  return markdown
    .split('\n')
    .map((line) => /^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|/.exec(line))
    .filter((match) => match !== null)
    .map((match) => `${match[1]} ${match[2]} ${match[3]}`);
}

function declaredForms(): string[] {
  return errorCodeForms().map((form) => `${form.code} ${form.status} ${form.type}`);
}

describe('error-code registry', () => {
  it('docs/errors.md lists every declared code with its status and type, and nothing else', () => {
    const documented = documentedForms(readFileSync(ERRORS_DOC, 'utf8'));
    const declared = declaredForms();
    expect(documented.filter((form) => !declared.includes(form))).toEqual([]);
    expect(declared.filter((form) => !documented.includes(form))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('reads the table the way a reader does (the check cannot pass on an empty parse)', () => {
    const sample = [
      '| `invalid_value` | 400 | invalid_request_error | a bad value |',
      '| code | status | type | when |',
      '| `model_not_found` | 404 | not_found_error | no such model |',
    ].join('\n');
    expect(documentedForms(sample)).toEqual([
      'invalid_value 400 invalid_request_error',
      'model_not_found 404 not_found_error',
    ]);
    expect(declaredForms().length).toBeGreaterThan(60);
  });

  it('every code is snake_case with a one-line meaning', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(spec.meaning.length).toBeGreaterThan(10);
      expect(spec.meaning).not.toContain('\n');
    }
  });

  it('the classes that fix their own code send it with its declared status and type', () => {
    const fixed: GatewayError[] = [
      new InvalidRequestError('bad'),
      new AuthenticationError(),
      new InsufficientCreditsError(),
      new PayloadTooLargeError(10),
      new InternalError(),
    ];
    for (const error of fixed) {
      const spec = ERROR_CODES[error.code as ErrorCode];
      expect({ code: error.code, status: error.status, type: error.type }).toEqual({
        code: error.code,
        status: spec.status,
        type: spec.type,
      });
    }
  });

  it('a relayed code is sent as received, and an absent one leaves room for our fallback', () => {
    expect(passThroughCode('overloaded_error')).toBe('overloaded_error');
    expect(passThroughCode('')).toBe('');
    expect(passThroughCode(null) ?? 'upstream_error').toBe('upstream_error');
    expect(passThroughCode(undefined) ?? 'invalid_request').toBe('invalid_request');
  });
});
