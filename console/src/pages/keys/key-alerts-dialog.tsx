import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Dialog } from 'radix-ui';
import { api, unwrap } from '../../api/client';
import { QueryView } from '../../layout/page-states';
import { FormOutcome, useFormAction } from '../../components/form-action';
import { AlertChannelFields, useAlertChannels } from '../../components/alert-channels';
import { formatMoney } from '../../format/format';
import type { paths } from '../../api/schema';
import type { ApiKey } from './key-form-values';

type KeySpendAlert =
  paths['/api-account/user/api-keys/{key_id}/alerts/spend']['get']['responses']['200']['content']['application/json'];

const PERIODS = [
  { period: 'daily', label: 'Per day (USD)' },
  { period: 'weekly', label: 'Per week (USD)' },
  { period: 'monthly', label: 'Per month (USD)' },
] as const;
type Period = (typeof PERIODS)[number]['period'];

/** Text typed for a threshold → USD, null when empty, or 'bad'. */
function thresholdOf(text: string): number | null | 'bad' {
  const trimmed = text.trim().replace(/^\$/, '');
  if (trimmed === '') return null;
  if (!/^\d+(\.\d{1,9})?$/.test(trimmed) || Number(trimmed) <= 0) return 'bad';
  return Number(trimmed);
}

function AlertForm({ apiKey, alert }: { apiKey: ApiKey; alert: KeySpendAlert }) {
  const queryClient = useQueryClient();
  const initial = (period: Period) => (alert.thresholds[period] === null ? '' : String(alert.thresholds[period]));
  const [amounts, setAmounts] = useState<Record<Period, string>>({
    daily: initial('daily'),
    weekly: initial('weekly'),
    monthly: initial('monthly'),
  });
  const channels = useAlertChannels(alert);
  const path = { params: { path: { key_id: apiKey.key_id } } };
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['key-spend-alert', apiKey.key_id] });
  const save = useFormAction(async () => {
    const thresholds: Partial<Record<Period, number | null>> = {};
    for (const { period } of PERIODS) {
      const value = thresholdOf(amounts[period]);
      if (value === 'bad') throw new Error(`The ${period} threshold must be an amount in USD above 0.`);
      thresholds[period] = value;
    }
    if (Object.values(thresholds).every((value) => value === null)) throw new Error('Set at least one threshold.');
    const result = await unwrap(
      api.PUT('/api-account/user/api-keys/{key_id}/alerts/spend', {
        ...path,
        body: { thresholds, ...channels.body() },
      }),
    );
    channels.setSecret(result.webhook_secret ?? null);
    await refresh();
    return 'Saved.';
  });
  const remove = useFormAction(async () => {
    await unwrap(api.DELETE('/api-account/user/api-keys/{key_id}/alerts/spend', path));
    setAmounts({ daily: '', weekly: '', monthly: '' });
    await refresh();
    return 'Removed.';
  });
  return (
    <form className="form" onSubmit={(event) => void save.submit(event)}>
      <p className="muted">
        Spend so far: {formatMoney(alert.spend.daily ?? 0)} today, {formatMoney(alert.spend.weekly ?? 0)} this week,{' '}
        {formatMoney(alert.spend.monthly ?? 0)} this month (UTC). Each threshold fires once per period.
      </p>
      <div className="form-row">
        {PERIODS.map(({ period, label }) => (
          <div className="field" key={period}>
            <label htmlFor={`key-alert-${period}`}>{label}</label>
            <input
              id={`key-alert-${period}`}
              inputMode="decimal"
              value={amounts[period]}
              onChange={(event) => setAmounts({ ...amounts, [period]: event.target.value })}
            />
            {alert.fired[period] && <p className="field-hint">Fired this period.</p>}
          </div>
        ))}
      </div>
      <AlertChannelFields idPrefix="key-alert" channels={channels} />
      <div className="dialog-actions">
        {alert.configured && (
          <button type="button" className="button" disabled={remove.busy} onClick={() => void remove.submit()}>
            Remove alert
          </button>
        )}
        <button type="submit" className="button primary" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save alert'}
        </button>
      </div>
      <FormOutcome failure={save.failure ?? remove.failure} done={save.done ?? remove.done} />
    </form>
  );
}

/** A key's spend thresholds per day, week and month: an email and/or a signed webhook when reached. */
export function KeyAlertsDialog({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const alert = useQuery({
    queryKey: ['key-spend-alert', apiKey?.key_id],
    enabled: apiKey !== null,
    queryFn: () =>
      unwrap(
        api.GET('/api-account/user/api-keys/{key_id}/alerts/spend', {
          params: { path: { key_id: apiKey?.key_id ?? '' } },
        }),
      ),
  });
  return (
    <Dialog.Root open={apiKey !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>Spend alerts for “{apiKey?.name}”</Dialog.Title>
          <Dialog.Description className="muted">
            Get an email or a signed webhook when this key’s spend reaches a threshold. Deliveries are listed on the
            Account page.
          </Dialog.Description>
          {apiKey && (
            <QueryView query={alert} label="Loading alerts">
              {(data) => <AlertForm key={apiKey.key_id} apiKey={apiKey} alert={data} />}
            </QueryView>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
