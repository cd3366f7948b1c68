import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../shared/errors.js';
import { checkGeminiRequest } from './check-gemini-request.js';

describe('checkGeminiRequest', () => {
  it.each([
    ['a body that is not an object', 'hi', null],
    ['contents missing', {}, 'contents'],
    ['contents a string (was a 500)', { contents: 'hi' }, 'contents'],
    ['a turn that is not an object', { contents: ['hi'] }, 'contents[0]'],
    ['a role that is not a string', { contents: [{ role: 1, parts: [] }] }, 'contents[0].role'],
    ['parts that are not objects', { contents: [{ parts: ['hi'] }] }, 'contents[0].parts'],
    ['a systemInstruction array', { contents: [], systemInstruction: [] }, 'systemInstruction'],
    ['tools an object', { contents: [], tools: {} }, 'tools'],
    ['generationConfig a string', { contents: [], generationConfig: 'x' }, 'generationConfig'],
  ])('refuses %s, naming the field', (_name, body, param) => {
    let thrown: unknown;
    try {
      checkGeminiRequest(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidRequestError);
    expect((thrown as InvalidRequestError).param).toBe(param);
  });

  it('lets through what it does not read, and a string systemInstruction', () => {
    expect(() =>
      checkGeminiRequest({
        contents: [{ role: 'user', parts: [{ text: 'Hi', futurePart: 1 }] }],
        systemInstruction: 'Be brief.',
        tools: [{ googleSearch: {} }],
        futureField: { a: 1 },
      }),
    ).not.toThrow();
  });
});
