import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { Answer } from '../../api/answers';
import { EmptyState, PageHeader, QueryView } from '../../layout/page-states';
import { CopyButton } from '../../components/copy-button';
import { FormOutcome, useFormAction } from '../../components/form-action';
import { formatDateTime } from '../../format/format';

const INVITATIONS = ['admin-invitations'];
type Issued = Answer<'/api-account/admin/invitations', 'post'>;
type Invitation = Answer<'/api-account/admin/invitations', 'get'>['data'][number];

function stateOf(invitation: Invitation): 'used' | 'expired' | 'open' {
  if (invitation.used_at) return 'used';
  return Date.parse(invitation.expires_at) <= Date.now() ? 'expired' : 'open';
}

/** Single-use, expiring sign-up links (for `auth.sign_up: invite`): issue, copy once, revoke. */
export default function AdminInvitationsPage() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [ttlHours, setTtlHours] = useState('');
  const [issued, setIssued] = useState<Issued | null>(null);
  const invitations = useQuery({
    queryKey: INVITATIONS,
    queryFn: () => unwrap(api.GET('/api-account/admin/invitations')),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: INVITATIONS });
  const invite = useFormAction(async () => {
    const hours = Number(ttlHours);
    const result = await unwrap(
      api.POST('/api-account/admin/invitations', {
        body: { email: email.trim(), ...(ttlHours && Number.isInteger(hours) ? { ttl_hours: hours } : {}) },
      }),
    );
    setIssued(result);
    setEmail('');
    await refresh();
  });
  const revoke = useMutation({
    mutationFn: (id: string) =>
      unwrap(api.DELETE('/api-account/admin/invitations/{invitation_id}', { params: { path: { invitation_id: id } } })),
    onSuccess: refresh,
  });

  return (
    <>
      <PageHeader
        title="Invitations"
        description="When sign-up is by invitation, a person signs up with the link sent to them. Each link works once."
      />
      <form className="card form section" onSubmit={(event) => void invite.submit(event)}>
        <h2>Invite someone</h2>
        <div className="form-row">
          <div className="field">
            <label htmlFor="invite-email">Email address</label>
            <input
              id="invite-email"
              type="email"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="invite-ttl">Valid for (hours)</label>
            <input
              id="invite-ttl"
              inputMode="numeric"
              placeholder="default"
              value={ttlHours}
              aria-describedby="invite-ttl-hint"
              onChange={(event) => setTtlHours(event.target.value)}
            />
            <p id="invite-ttl-hint" className="field-hint">
              1 to 8,760; empty for the gateway’s default.
            </p>
          </div>
        </div>
        <button type="submit" className="button primary" disabled={invite.busy || !email.trim()}>
          {invite.busy ? 'Creating…' : 'Create invitation'}
        </button>
        <FormOutcome failure={invite.failure} done={invite.done} />
        {issued && (
          <div className="callout" role="status">
            <p>
              Invitation for <strong>{issued.email}</strong>, valid until {formatDateTime(issued.expires_at)}. Send this
              link; it is not shown again.
            </p>
            <div className="secret">
              <code>{issued.link}</code>
              <CopyButton text={issued.link} label="Copy link" className="button primary" />
            </div>
          </div>
        )}
      </form>
      <section className="section">
        <h2>Issued</h2>
        <QueryView query={invitations} label="Loading invitations">
          {({ data }) =>
            data.length === 0 ? (
              <EmptyState title="No invitations yet" />
            ) : (
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Email</th>
                      <th scope="col">State</th>
                      <th scope="col">Created</th>
                      <th scope="col">Expires</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.map((invitation) => {
                      const state = stateOf(invitation);
                      return (
                        <tr key={invitation.id}>
                          <td className="wrap-anywhere">{invitation.email}</td>
                          <td>
                            <span
                              className={`badge ${state === 'open' ? 'warning' : state === 'used' ? 'success' : 'danger'}`}
                            >
                              {state === 'used' ? `used ${formatDateTime(invitation.used_at)}` : state}
                            </span>
                          </td>
                          <td>{formatDateTime(invitation.created_at)}</td>
                          <td>{formatDateTime(invitation.expires_at)}</td>
                          <td>
                            {state === 'open' && (
                              <button
                                type="button"
                                className="button small"
                                aria-label={`Revoke the invitation for ${invitation.email}`}
                                disabled={revoke.isPending}
                                onClick={() => revoke.mutate(invitation.id)}
                              >
                                Revoke
                              </button>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )
          }
        </QueryView>
        {revoke.error && (
          <p className="form-failure" role="alert">
            {revoke.error.message}
          </p>
        )}
      </section>
    </>
  );
}
