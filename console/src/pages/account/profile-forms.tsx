import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { refreshSession } from '../../session/session';
import type { User } from '../../api/answers';
import { FormOutcome, useFormAction } from '../../components/form-action';

export function NameForm({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(user.name);
  const action = useFormAction(async () => {
    await unwrap(api.PATCH('/api-account/user/me', { body: { name } }));
    await refreshSession(queryClient);
    return 'Saved.';
  });
  return (
    <form className="card form" onSubmit={(event) => void action.submit(event)}>
      <h2>Profile</h2>
      <div className="field">
        <label htmlFor="profile-name">Name</label>
        <input id="profile-name" value={name} maxLength={200} required onChange={(e) => setName(e.target.value)} />
        <p className="field-hint">Shown in the console and on your invoices.</p>
      </div>
      <button type="submit" className="button primary" disabled={action.busy || name.trim() === ''}>
        {action.busy ? 'Saving…' : 'Save name'}
      </button>
      <FormOutcome failure={action.failure} done={action.done} />
    </form>
  );
}

/** The change takes effect when the link sent to the new address is followed (POST /user/email). */
export function EmailForm({ user }: { user: User }) {
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useFormAction(async () => {
    const result = await unwrap(api.POST('/api-account/user/email', { body: { new_email: newEmail, password } }));
    setPassword('');
    return result.message;
  });
  return (
    <form className="card form" onSubmit={(event) => void action.submit(event)}>
      <h2>Email address</h2>
      <p className="muted">
        Now <strong>{user.email}</strong>. A confirmation link goes to the new address; the change happens when it is
        followed.
      </p>
      <div className="field">
        <label htmlFor="email-new">New email address</label>
        <input
          id="email-new"
          type="email"
          autoComplete="email"
          required
          value={newEmail}
          onChange={(e) => setNewEmail(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="email-password">Current password</label>
        <input
          id="email-password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
      <button type="submit" className="button primary" disabled={action.busy || !newEmail || !password}>
        {action.busy ? 'Sending…' : 'Send confirmation link'}
      </button>
      <FormOutcome failure={action.failure} done={action.done} />
    </form>
  );
}

export function PasswordForm() {
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [signOutOthers, setSignOutOthers] = useState(true);
  const action = useFormAction(async () => {
    await unwrap(
      api.POST('/api-account/user/password', {
        body: { current_password: current, new_password: next, revoke_other_sessions: signOutOthers },
      }),
    );
    setCurrent('');
    setNext('');
    await queryClient.invalidateQueries({ queryKey: ['sessions'] });
    return signOutOthers ? 'Password changed. Every other session was signed out.' : 'Password changed.';
  });
  return (
    <form className="card form" onSubmit={(event) => void action.submit(event)}>
      <h2>Password</h2>
      <div className="field">
        <label htmlFor="password-current">Current password</label>
        <input
          id="password-current"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="password-new">New password</label>
        <input
          id="password-new"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          aria-describedby="password-new-hint"
          value={next}
          onChange={(e) => setNext(e.target.value)}
        />
        <p id="password-new-hint" className="field-hint">
          At least 10 characters, and not one of the most common passwords.
        </p>
      </div>
      <label className="inline-check">
        <input type="checkbox" checked={signOutOthers} onChange={(e) => setSignOutOthers(e.target.checked)} />
        Sign out every other session
      </label>
      <button type="submit" className="button primary" disabled={action.busy || !current || !next}>
        {action.busy ? 'Changing…' : 'Change password'}
      </button>
      <FormOutcome failure={action.failure} done={action.done} />
    </form>
  );
}
