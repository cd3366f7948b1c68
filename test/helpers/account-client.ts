import { randomId } from '../../src/shared/ids.js';

export interface JsonResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** A tiny client for the account interface, as curl would use it (no Origin, bearer session token). */
export class AccountClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
    readonly email: string,
  ) {}

  /**
   * Signs up a fresh user through POST /api-account/auth/sign-up/email, then signs in: sign-up
   * answers alike for new and taken emails, so it hands out no session.
   */
  static async signUp(
    baseUrl: string,
    email = `user-${randomId(10).toLowerCase()}@example.com`,
    password = 'plum-orbit-42-lantern',
  ): Promise<AccountClient> {
    const response = await requestJson(baseUrl, 'POST', '/api-account/auth/sign-up/email', {
      email,
      password,
      name: 'Test User',
    });
    if (response.status !== 200) throw new Error(`sign-up failed: ${response.status} ${response.text}`);
    const signIn = await requestJson(baseUrl, 'POST', '/api-account/auth/sign-in/email', { email, password });
    if (signIn.status !== 200 || typeof signIn.body?.token !== 'string')
      throw new Error(`sign-in after sign-up failed: ${signIn.status} ${signIn.text}`);
    return new AccountClient(baseUrl, signIn.body.token, email);
  }

  /** Signs in an existing user (by default with the test gateway's password) through the account API. */
  static async signIn(baseUrl: string, email: string, password = 'plum-orbit-42-lantern'): Promise<AccountClient> {
    const signIn = await requestJson(baseUrl, 'POST', '/api-account/auth/sign-in/email', { email, password });
    if (signIn.status !== 200 || typeof signIn.body?.token !== 'string')
      throw new Error(`sign-in failed: ${signIn.status} ${signIn.text}`);
    return new AccountClient(baseUrl, signIn.body.token, email);
  }

  request<T = any>(method: string, path: string, body?: unknown): Promise<JsonResponse<T>> {
    return requestJson<T>(this.baseUrl, method, path, body, { authorization: `Bearer ${this.token}` });
  }
}

export async function requestJson<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse<T>> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed as T, text, headers: response.headers };
}
