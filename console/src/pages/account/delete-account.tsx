import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { AlertDialog } from 'radix-ui';
import { api, unwrap } from '../../api/client';
import { refreshSession } from '../../session/session';
import { FormOutcome, useFormAction } from '../../components/form-action';

/** Deleting the account stops its keys at once and erases it; the password confirms it is really you. */
export function DeleteAccount() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const action = useFormAction(async () => {
    await unwrap(api.DELETE('/api-account/user/me', { body: { password } }));
    await refreshSession(queryClient);
    navigate('/sign-in');
  });
  return (
    <section className="card form section">
      <h2>Delete account</h2>
      <p className="muted">
        Your API keys stop working at once, and your account, keys and history are erased. Unused credits are not
        refunded.
      </p>
      <AlertDialog.Root open={open} onOpenChange={setOpen}>
        <AlertDialog.Trigger className="button danger">Delete my account…</AlertDialog.Trigger>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="dialog-overlay" />
          <AlertDialog.Content className="dialog narrow">
            <AlertDialog.Title>Delete your account?</AlertDialog.Title>
            <AlertDialog.Description>This cannot be undone. Enter your password to confirm.</AlertDialog.Description>
            <form className="form" onSubmit={(event) => void action.submit(event)}>
              <div className="field">
                <label htmlFor="delete-password">Password</label>
                <input
                  id="delete-password"
                  type="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              </div>
              <FormOutcome failure={action.failure} done={action.done} />
              <div className="dialog-actions">
                <AlertDialog.Cancel className="button">Keep my account</AlertDialog.Cancel>
                <button type="submit" className="button danger" disabled={action.busy || !password}>
                  {action.busy ? 'Deleting…' : 'Delete account'}
                </button>
              </div>
            </form>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </section>
  );
}
