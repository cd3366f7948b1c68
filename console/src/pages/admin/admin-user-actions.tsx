import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Answer } from '../../api/answers';
import { useSession } from '../../session/session';
import { formatMoney } from '../../format/format';
import { FormOutcome, useFormAction } from '../../components/form-action';

export type AdminUser = Answer<'/api-account/admin/users/{user_id}', 'get'>;

/** After a change, the account's own page and the accounts list show it. */
function useRefreshAccount(userId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['admin-user', userId] }),
      queryClient.invalidateQueries({ queryKey: ['admin-users'] }),
      queryClient.invalidateQueries({ queryKey: ['admin-orders', userId] }),
    ]);
}

/** Role and sign-in: make or unmake an administrator; disable (keys revoked, sessions ended) or enable. */
export function AccessForm({ user }: { user: AdminUser }) {
  const refresh = useRefreshAccount(user.id);
  const { user: me } = useSession();
  const [role, setRole] = useState(user.role);
  const [reason, setReason] = useState('');
  const path = { params: { path: { user_id: user.id } } };
  const saveRole = useFormAction(async () => {
    await unwrap(api.PUT('/api-account/admin/users/{user_id}/role', { ...path, body: { role } }));
    await refresh();
    return `Role is now ${role}.`;
  });
  const toggle = useFormAction(async () => {
    const body = reason.trim() ? { reason: reason.trim() } : {};
    if (user.disabled) await unwrap(api.POST('/api-account/admin/users/{user_id}/enable', { ...path, body }));
    else await unwrap(api.POST('/api-account/admin/users/{user_id}/disable', { ...path, body }));
    setReason('');
    await refresh();
    return user.disabled ? 'Enabled: the account can sign in again.' : 'Disabled: its keys and sessions have ended.';
  });
  const self = me?.id === user.id;

  return (
    <div className="card form">
      <h2>Role and access</h2>
      <form className="toolbar" onSubmit={(event) => void saveRole.submit(event)}>
        <div className="field">
          <label htmlFor="admin-role">Role</label>
          <select id="admin-role" value={role} onChange={(event) => setRole(event.target.value as AdminUser['role'])}>
            <option value="user">User</option>
            <option value="admin">Administrator</option>
          </select>
        </div>
        <button type="submit" className="button" disabled={saveRole.busy || role === user.role}>
          Save role
        </button>
      </form>
      <FormOutcome failure={saveRole.failure} done={saveRole.done} />
      <form className="form" onSubmit={(event) => void toggle.submit(event)}>
        <div className="field">
          <label htmlFor="admin-access-reason">Reason (kept in the audit log)</label>
          <input
            id="admin-access-reason"
            value={reason}
            maxLength={500}
            onChange={(event) => setReason(event.target.value)}
          />
        </div>
        <div className="page-actions">
          <button
            type="submit"
            className={user.disabled ? 'button primary' : 'button danger'}
            disabled={toggle.busy || (self && !user.disabled)}
          >
            {user.disabled ? 'Enable account' : 'Disable account'}
          </button>
        </div>
        {self && !user.disabled && <p className="field-hint">You cannot disable your own account here.</p>}
        {!user.disabled && <p className="field-hint">Disabling revokes every API key at once and ends its sessions.</p>}
      </form>
      <FormOutcome failure={toggle.failure} done={toggle.done} />
    </div>
  );
}

/** Grant or deduct credits; the reason goes into the ledger and the audit log. */
export function CreditsForm({ user }: { user: AdminUser }) {
  const refresh = useRefreshAccount(user.id);
  const [direction, setDirection] = useState<'grant' | 'deduct'>('grant');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const valid = /^\d+(\.\d{1,9})?$/.test(amount.trim()) && Number(amount) > 0;
  const action = useFormAction(async () => {
    const signed = direction === 'grant' ? amount.trim() : `-${amount.trim()}`;
    const result = await unwrap(
      api.POST('/api-account/admin/users/{user_id}/credits', {
        params: { path: { user_id: user.id } },
        body: { amount: signed, reason: reason.trim() },
      }),
    );
    setAmount('');
    setReason('');
    await refresh();
    return `${result.kind === 'grant' ? 'Granted' : 'Deducted'} ${formatMoney(Math.abs(result.amount))}; the balance is now ${formatMoney(result.balance)}.`;
  });
  return (
    <form className="card form" onSubmit={(event) => void action.submit(event)}>
      <h2>Credits</h2>
      <fieldset className="field">
        <legend>Action</legend>
        <div className="page-actions">
          <label className="inline-check">
            <input
              type="radio"
              name="credit-direction"
              checked={direction === 'grant'}
              onChange={() => setDirection('grant')}
            />
            Grant
          </label>
          <label className="inline-check">
            <input
              type="radio"
              name="credit-direction"
              checked={direction === 'deduct'}
              onChange={() => setDirection('deduct')}
            />
            Deduct
          </label>
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor="admin-credit-amount">Amount (USD)</label>
        <input
          id="admin-credit-amount"
          inputMode="decimal"
          value={amount}
          aria-invalid={amount !== '' && !valid ? true : undefined}
          aria-describedby="admin-credit-amount-hint"
          onChange={(event) => setAmount(event.target.value)}
        />
        <p id="admin-credit-amount-hint" className="field-hint">
          Up to 9 decimals. A deduction never takes the balance below zero.
        </p>
      </div>
      <div className="field">
        <label htmlFor="admin-credit-reason">Reason</label>
        <input
          id="admin-credit-reason"
          required
          maxLength={500}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
      </div>
      <button type="submit" className="button primary" disabled={action.busy || !valid || reason.trim() === ''}>
        {direction === 'grant' ? 'Grant credits' : 'Deduct credits'}
      </button>
      <FormOutcome failure={action.failure} done={action.done} />
    </form>
  );
}
