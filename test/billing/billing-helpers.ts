import { expect } from 'vitest';
import { createUser } from '../../src/users/create-user.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import type { TestGateway } from '../helpers/test-gateway.js';

export interface SignedInUser {
  id: string;
  email: string;
  token: string;
  /** fetch against the gateway as this user; JSON in and out. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }>;
}

/** A new account on the test gateway, signed in through the auth API like a real client. */
export async function signUpUser(gateway: TestGateway, name = 'Billing User'): Promise<SignedInUser> {
  const email = `buyer-${randomIdGenerator.next('').toLowerCase()}@example.com`;
  const user = await createUser(gateway.auth, gateway.testStore.store, {
    email,
    password: 'plum-orbit-42-lantern',
    name,
  });
  const response = await fetch(`${gateway.url}/api-account/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'plum-orbit-42-lantern' }),
  });
  expect(response.status).toBe(200);
  const { token } = (await response.json()) as { token: string };
  const call = async (method: string, path: string, body?: unknown) => {
    const result = await fetch(`${gateway.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await result.text();
    return { status: result.status, json: text ? JSON.parse(text) : null, headers: result.headers };
  };
  return { id: user.id, email, token, call };
}
