import { useState, type FormEvent } from 'react';

export interface AuthFields {
  name: string;
  email: string;
  password: string;
}

/** Checks done before asking the server (it checks again): the same limits better-auth applies. */
function validateAuthFields(
  fields: AuthFields,
  mode: 'sign-in' | 'sign-up',
): Partial<Record<keyof AuthFields, string>> {
  const problems: Partial<Record<keyof AuthFields, string>> = {};
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(fields.email.trim()))
    problems.email = 'Enter an email address like you@example.com.';
  if (mode === 'sign-up' && fields.password.length < 10) problems.password = 'Use at least 10 characters.';
  if (mode === 'sign-in' && fields.password.length === 0) problems.password = 'Enter your password.';
  if (fields.password.length > 256) problems.password = 'Use at most 256 characters.';
  return problems;
}

/** The sign-in and sign-up form: labelled fields, inline problems, the server's message on failure. */
export function AuthForm({
  mode,
  onSubmit,
}: {
  mode: 'sign-in' | 'sign-up';
  onSubmit: (fields: AuthFields) => Promise<void>;
}) {
  const [fields, setFields] = useState<AuthFields>({ name: '', email: '', password: '' });
  const [problems, setProblems] = useState<Partial<Record<keyof AuthFields, string>>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateAuthFields(fields, mode);
    setProblems(found);
    setFailure(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await onSubmit({ ...fields, email: fields.email.trim(), name: fields.name.trim() });
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'That did not work.');
    } finally {
      setBusy(false);
    }
  };

  const field = (name: keyof AuthFields, label: string, type: string, autoComplete: string) => (
    <div className="field">
      <label htmlFor={`auth-${name}`}>{label}</label>
      <input
        id={`auth-${name}`}
        name={name}
        type={type}
        autoComplete={autoComplete}
        value={fields[name]}
        aria-invalid={problems[name] ? true : undefined}
        aria-describedby={problems[name] ? `auth-${name}-problem` : undefined}
        onChange={(event) => setFields({ ...fields, [name]: event.target.value })}
      />
      {problems[name] && (
        <p id={`auth-${name}-problem`} className="field-problem">
          {problems[name]}
        </p>
      )}
    </div>
  );

  return (
    <form className="form" onSubmit={(event) => void submit(event)} noValidate>
      {mode === 'sign-up' && field('name', 'Name (optional)', 'text', 'name')}
      {field('email', 'Email', 'email', 'email')}
      {field('password', 'Password', 'password', mode === 'sign-up' ? 'new-password' : 'current-password')}
      {failure && (
        <p className="form-failure" role="alert">
          {failure}
        </p>
      )}
      <button type="submit" className="button primary wide" disabled={busy}>
        {busy ? 'Please wait…' : mode === 'sign-up' ? 'Create account' : 'Sign in'}
      </button>
    </form>
  );
}
