import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertDialog, Dialog } from 'radix-ui';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { EmptyState, PageHeader, QueryView } from '../../layout/page-states';
import { CopyButton } from '../../components/copy-button';
import { CodeSnippetsPanel } from '../../components/code-snippets-panel';
import { StatusBadge } from '../../components/status-badge';
import { formatCount, formatDateTime, formatMoney } from '../../format/format';
import { KeyForm } from './key-form';
import { RotateKeyDialog } from './rotate-key-dialog';
import { KeyAlertsDialog } from './key-alerts-dialog';
import { EMPTY_KEY_FORM, keyToForm, type ApiKey, type CreateKeyBody } from './key-form-values';

const KEYS = ['api-keys'];

function limitsText(key: ApiKey): string {
  const parts = [
    key.rpm_limit !== null && `${formatCount(key.rpm_limit)} rpm`,
    key.tpm_limit !== null && `${formatCount(key.tpm_limit)} tpm`,
    key.monthly_quota !== null && `${formatMoney(key.monthly_quota)}/month`,
    key.credit_limit !== null && `${formatMoney(key.credit_limit)} total`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : 'None';
}

/** API keys: list, create (the full key shown once), edit, revoke. */
export default function KeysPage() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: KEYS, queryFn: () => unwrap(api.GET('/api-account/user/api-keys')) });
  const templates = useQuery({
    queryKey: ['routing-templates'],
    queryFn: () => unwrap(api.GET('/api-account/routing-templates')),
    staleTime: 300_000,
  });
  const models = useQuery({
    queryKey: ['v1-models'],
    queryFn: () => unwrap(api.GET('/v1/models')),
    staleTime: 300_000,
  });
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [alerting, setAlerting] = useState<ApiKey | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: KEYS });
  const create = async (body: CreateKeyBody) => {
    const result = await unwrap(api.POST('/api-account/user/api-keys', { body }));
    setCreating(false);
    setCreated({ name: result.name, key: result.key });
    await refresh();
  };
  const update = async (key: ApiKey, body: CreateKeyBody) => {
    await unwrap(api.PATCH('/api-account/user/api-keys/{key_id}', { params: { path: { key_id: key.key_id } }, body }));
    setEditing(null);
    await refresh();
  };
  const revoke = useMutation({
    mutationFn: (key: ApiKey) =>
      unwrap(api.DELETE('/api-account/user/api-keys/{key_id}', { params: { path: { key_id: key.key_id } } })),
    onSuccess: async () => {
      setRevoking(null);
      await refresh();
    },
  });

  const templateOptions = templates.data?.data ?? [];
  const modelIds = (models.data?.data ?? []).map((model) => model.id);

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate your apps on /v1. Each has its own routing, limits and spend."
        actions={
          <button type="button" className="button primary" onClick={() => setCreating(true)}>
            Create key
          </button>
        }
      />
      <QueryView query={keys} label="Loading keys">
        {({ data }) =>
          data.length === 0 ? (
            <EmptyState title="No API keys yet">
              <p>Create a key, then use it as the OpenAI SDK’s apiKey with baseURL {location.origin}/v1.</p>
            </EmptyState>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="number">
                      Spend this month
                    </th>
                    <th scope="col">Limits</th>
                    <th scope="col">Last used</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((key) => (
                    <tr key={key.key_id}>
                      <td>
                        <strong>{key.name}</strong>
                        {key.description && <div className="muted">{key.description}</div>}
                        <div className="mono muted">{key.masked_key}</div>
                        {key.previous_key_expiration && (
                          <div className="muted">
                            Old secret works until {formatDateTime(key.previous_key_expiration)}
                          </div>
                        )}
                      </td>
                      <td>
                        <StatusBadge status={key.status} />
                      </td>
                      <td className="number">
                        {formatMoney(key.spend_this_month)}
                        <div className="muted">{formatMoney(key.spend_total)} total</div>
                      </td>
                      <td>{limitsText(key)}</td>
                      <td>{formatDateTime(key.last_used_at, undefined, 'Never')}</td>
                      <td>
                        <div className="page-actions two-by-two">
                          <Link
                            className="button small"
                            to={`/activity?key_id=${encodeURIComponent(key.key_id)}`}
                            aria-label={`Activity of ${key.name}`}
                          >
                            Activity
                          </Link>
                          <button
                            type="button"
                            className="button small"
                            aria-label={`Edit ${key.name}`}
                            onClick={() => setEditing(key)}
                          >
                            Edit
                          </button>
                          <button
                            type="button"
                            className="button small"
                            aria-label={`Spend alerts of ${key.name}`}
                            onClick={() => setAlerting(key)}
                          >
                            Alerts
                          </button>
                          <button
                            type="button"
                            className="button small"
                            aria-label={`Rotate ${key.name}`}
                            onClick={() => setRotating(key)}
                          >
                            Rotate
                          </button>
                          <button
                            type="button"
                            className="button small"
                            aria-label={`Revoke ${key.name}`}
                            onClick={() => setRevoking(key)}
                          >
                            Revoke
                          </button>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>

      <Dialog.Root
        open={creating || editing !== null}
        onOpenChange={(open) => !open && (setCreating(false), setEditing(null))}
      >
        <Dialog.Portal>
          <Dialog.Overlay className="dialog-overlay" />
          <Dialog.Content className="dialog">
            <Dialog.Title>{editing ? `Edit ${editing.name}` : 'Create an API key'}</Dialog.Title>
            <Dialog.Description className="muted">
              {editing ? 'Changes apply on every instance within a second.' : 'Every field but the name is optional.'}
            </Dialog.Description>
            <KeyForm
              key={editing?.key_id ?? 'new'}
              initial={editing ? keyToForm(editing) : EMPTY_KEY_FORM}
              templates={templateOptions}
              modelIds={modelIds}
              submitLabel={editing ? 'Save changes' : 'Create key'}
              onSubmit={(body) => (editing ? update(editing, body) : create(body))}
              onCancel={() => {
                setCreating(false);
                setEditing(null);
              }}
            />
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>

      <Dialog.Root open={created !== null} onOpenChange={(open) => !open && setCreated(null)}>
        <Dialog.Portal>
          <Dialog.Overlay className="dialog-overlay" />
          <Dialog.Content className="dialog narrow">
            <Dialog.Title>Your new key “{created?.name}”</Dialog.Title>
            <Dialog.Description>Copy it now and keep it somewhere safe.</Dialog.Description>
            <p className="callout" role="note">
              <strong>You will not see it again.</strong> The gateway stores only a hash of the key.
            </p>
            <div className="secret">
              <code data-testid="new-key">{created?.key}</code>
              {created && <CopyButton text={created.key} label="Copy key" className="button primary" />}
            </div>
            {created && modelIds[0] && (
              <div className="section">
                <h3>Try it</h3>
                <CodeSnippetsPanel modelId={modelIds[0]} apiKey={created.key} />
              </div>
            )}
            <div className="dialog-actions">
              <Dialog.Close className="button">I have copied it</Dialog.Close>
            </div>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>

      <KeyAlertsDialog apiKey={alerting} onClose={() => setAlerting(null)} />

      <RotateKeyDialog
        apiKey={rotating}
        onClose={() => setRotating(null)}
        onRotated={async (rotated) => {
          setRotating(null);
          setCreated(rotated);
          await refresh();
        }}
      />

      <AlertDialog.Root open={revoking !== null} onOpenChange={(open) => !open && setRevoking(null)}>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="dialog-overlay" />
          <AlertDialog.Content className="dialog narrow">
            <AlertDialog.Title>Revoke “{revoking?.name}”?</AlertDialog.Title>
            <AlertDialog.Description>
              Apps using this key stop working within a second. This cannot be undone.
            </AlertDialog.Description>
            {revoke.error && (
              <p className="form-failure" role="alert">
                {revoke.error.message}
              </p>
            )}
            <div className="dialog-actions">
              <AlertDialog.Cancel className="button">Keep the key</AlertDialog.Cancel>
              <button
                type="button"
                className="button danger"
                disabled={revoke.isPending}
                onClick={() => revoking && revoke.mutate(revoking)}
              >
                {revoke.isPending ? 'Revoking…' : 'Revoke key'}
              </button>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </>
  );
}
