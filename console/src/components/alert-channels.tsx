import { useState } from 'react';

/** What an alert form sends its alert through: an email to the account and/or a signed webhook. */
export function useAlertChannels(alert: { configured: boolean; email: boolean; webhook_url?: string | null }) {
  const [email, setEmail] = useState(alert.configured ? alert.email : true);
  const [webhookUrl, setWebhookUrl] = useState(alert.webhook_url ?? '');
  const [secret, setSecret] = useState<string | null>(null);
  return {
    email,
    setEmail,
    webhookUrl,
    setWebhookUrl,
    /** The webhook's signing secret, shown once after a save that returned it. */
    secret,
    setSecret,
    /** The channels as the alert APIs take them. */
    body: () => ({ email, webhook_url: webhookUrl.trim() || null }),
  };
}

/** The channel fields of an alert form (the email box, the webhook URL, the new signing secret). */
export function AlertChannelFields({
  idPrefix,
  channels,
}: {
  idPrefix: string;
  channels: ReturnType<typeof useAlertChannels>;
}) {
  return (
    <>
      <label className="inline-check">
        <input type="checkbox" checked={channels.email} onChange={(event) => channels.setEmail(event.target.checked)} />
        Email me
      </label>
      <div className="field">
        <label htmlFor={`${idPrefix}-webhook`}>Webhook URL (optional, https)</label>
        <input
          id={`${idPrefix}-webhook`}
          type="url"
          value={channels.webhookUrl}
          onChange={(event) => channels.setWebhookUrl(event.target.value)}
        />
      </div>
      {channels.secret && (
        <p className="callout" role="note">
          Webhook signing secret (shown once): <code data-testid="webhook-secret">{channels.secret}</code>
        </p>
      )}
    </>
  );
}
