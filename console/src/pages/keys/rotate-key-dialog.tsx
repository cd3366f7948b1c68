import { useState } from 'react';
import { AlertDialog } from 'radix-ui';
import { api, unwrap } from '../../api/client';
import type { ApiKey } from './key-form-values';

/** Grace periods the API accepts (0 to 7 days, in seconds); 24 h is its default. */
const GRACE_PERIODS = [
  { seconds: 0, label: 'None: the old secret stops now' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 604_800, label: '7 days' },
];

/**
 * Rotation gives the key a new secret with the same id, settings and history; the old secret keeps
 * working for the grace period, so apps can be moved over without an outage.
 */
export function RotateKeyDialog({
  apiKey,
  onClose,
  onRotated,
}: {
  apiKey: ApiKey | null;
  onClose: () => void;
  onRotated: (rotated: { name: string; key: string }) => Promise<void>;
}) {
  const [grace, setGrace] = useState(86_400);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const rotate = async () => {
    if (!apiKey) return;
    setBusy(true);
    setFailure(null);
    try {
      const result = await unwrap(
        api.POST('/api-account/user/api-keys/{key_id}/rotate', {
          params: { path: { key_id: apiKey.key_id } },
          body: { grace_period_seconds: grace },
        }),
      );
      await onRotated({ name: result.name, key: result.key });
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'The key could not be rotated.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <AlertDialog.Root open={apiKey !== null} onOpenChange={(open) => !open && (setFailure(null), onClose())}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog narrow">
          <AlertDialog.Title>Rotate “{apiKey?.name}”?</AlertDialog.Title>
          <AlertDialog.Description>
            The key gets a new secret; its settings, limits and history stay. Until the grace period ends, the old
            secret works too.
          </AlertDialog.Description>
          <div className="field">
            <label htmlFor="rotate-grace">Grace period for the old secret</label>
            <select id="rotate-grace" value={grace} onChange={(event) => setGrace(Number(event.target.value))}>
              {GRACE_PERIODS.map((option) => (
                <option key={option.seconds} value={option.seconds}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
          {failure && (
            <p className="form-failure" role="alert">
              {failure}
            </p>
          )}
          <div className="dialog-actions">
            <AlertDialog.Cancel className="button">Keep the secret</AlertDialog.Cancel>
            <button type="button" className="button primary" disabled={busy} onClick={() => void rotate()}>
              {busy ? 'Rotating…' : 'Rotate key'}
            </button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
