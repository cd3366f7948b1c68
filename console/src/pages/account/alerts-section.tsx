import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { QueryView } from '../../layout/page-states';
import { FormOutcome, useFormAction } from '../../components/form-action';
import { AlertChannelFields, useAlertChannels } from '../../components/alert-channels';
import { formatDateTime } from '../../format/format';
import type { paths } from '../../api/schema';

type BalanceAlert = paths['/api-account/user/alerts/balance']['get']['responses']['200']['content']['application/json'];

const BALANCE = ['balance-alert'];
const DELIVERIES = ['alert-deliveries'];

function BalanceAlertForm({ alert }: { alert: BalanceAlert }) {
  const queryClient = useQueryClient();
  const [threshold, setThreshold] = useState(alert.threshold === null ? '' : String(alert.threshold));
  const channels = useAlertChannels(alert);
  const refresh = () => queryClient.invalidateQueries({ queryKey: BALANCE });
  const save = useFormAction(async () => {
    const amount = threshold.trim().replace(/^\$/, '');
    if (!/^\d+(\.\d{1,9})?$/.test(amount) || Number(amount) <= 0)
      throw new Error('The threshold must be an amount in USD above 0.');
    const result = await unwrap(
      api.PUT('/api-account/user/alerts/balance', {
        body: { threshold: Number(amount), ...channels.body() },
      }),
    );
    channels.setSecret(result.webhook_secret ?? null);
    await refresh();
    return 'Saved.';
  });
  const remove = useFormAction(async () => {
    await unwrap(api.DELETE('/api-account/user/alerts/balance'));
    setThreshold('');
    await refresh();
    return 'Removed.';
  });
  return (
    <form className="card form" onSubmit={(event) => void save.submit(event)}>
      <h3>Low balance</h3>
      <p className="muted">
        Once each time the balance falls under the threshold.
        {alert.configured && !alert.armed && ' Fired: it re-arms when the balance is back at the threshold.'}
      </p>
      <div className="field">
        <label htmlFor="balance-alert-threshold">Balance threshold (USD)</label>
        <input
          id="balance-alert-threshold"
          inputMode="decimal"
          value={threshold}
          onChange={(event) => setThreshold(event.target.value)}
        />
      </div>
      <AlertChannelFields idPrefix="balance-alert" channels={channels} />
      <div className="page-actions">
        <button type="submit" className="button primary" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save alert'}
        </button>
        {alert.configured && (
          <button type="button" className="button" disabled={remove.busy} onClick={() => void remove.submit()}>
            Remove
          </button>
        )}
      </div>
      <FormOutcome failure={save.failure ?? remove.failure} done={save.done ?? remove.done} />
    </form>
  );
}

/** Alerts: the balance threshold here, each key's spend thresholds on the keys page, and what was sent. */
export function AlertsSection() {
  const balance = useQuery({ queryKey: BALANCE, queryFn: () => unwrap(api.GET('/api-account/user/alerts/balance')) });
  const deliveries = useQuery({
    queryKey: DELIVERIES,
    queryFn: () => unwrap(api.GET('/api-account/user/alerts/deliveries', { params: { query: { limit: 50 } } })),
  });
  return (
    <section className="section">
      <h2>Alerts</h2>
      <p className="muted">Spend alerts per key are set from the API keys page (Alerts).</p>
      <div className="grid two-columns">
        <QueryView query={balance} label="Loading the balance alert">
          {(data) => <BalanceAlertForm alert={data} />}
        </QueryView>
      </div>
      <h3>Sent alerts</h3>
      <QueryView query={deliveries} label="Loading sent alerts">
        {({ data }) =>
          data.length === 0 ? (
            <p className="muted">No alert has been sent yet.</p>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Alert</th>
                    <th scope="col">Channel</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((row) => (
                    <tr key={row.id}>
                      <td>{formatDateTime(row.created_at)}</td>
                      <td>
                        {row.event}
                        {row.key_id && <div className="mono muted">{row.key_id}</div>}
                      </td>
                      <td>{row.channel}</td>
                      <td>
                        {row.status}
                        {row.error && <div className="muted">{row.error}</div>}
                      </td>
                      <td>
                        {row.attempts}
                        {row.response_status !== null && <span className="muted"> · HTTP {row.response_status}</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
    </section>
  );
}
