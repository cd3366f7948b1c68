/**
 * Replaces ${NAME} and ${NAME:-default} in a config string with environment values.
 * An unset variable without a default is reported, not silently emptied: a missing
 * credential should fail at start-up, not as a 401 from the provider later.
 */
export interface InterpolationResult {
  value: string;
  missing: string[];
}

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function interpolateEnv(text: string, env: Record<string, string | undefined>): InterpolationResult {
  const missing: string[] = [];
  const value = text.replace(PATTERN, (_match, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
  return { value, missing };
}
