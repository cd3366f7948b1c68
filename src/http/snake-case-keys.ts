/**
 * The account API answers in snake_case only (issue 17). better-auth speaks camelCase
 * (`emailVerified`, `createdAt`, `rememberMe`), so its JSON is renamed at our edge, both ways.
 */

/** emailVerified → email_verified, callbackURL → callback_url, ipAddress → ip_address. */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** Renames every object key of a JSON value (deeply); values are untouched. */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, inner]) => [toSnakeCase(name), snakeCaseKeys(inner)]));
}

/**
 * The snake_case names better-auth's request fields are accepted under, mapped to its own. Its
 * camelCase names keep working (the console and better-auth's client send them).
 */
const REQUEST_FIELD_NAMES: Record<string, string> = {
  remember_me: 'rememberMe',
  callback_url: 'callbackURL',
  new_password: 'newPassword',
  current_password: 'currentPassword',
  revoke_other_sessions: 'revokeOtherSessions',
  redirect_to: 'redirectTo',
  new_email: 'newEmail',
};

/** A request body's top-level snake_case fields → better-auth's names (the camelCase one wins if both are sent). */
export function toAuthRequestFields(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    const renamed = REQUEST_FIELD_NAMES[name];
    if (renamed === undefined) fields[name] = value;
    else if (!(renamed in body)) fields[renamed] = value;
  }
  return fields;
}
