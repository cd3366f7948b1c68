import { Dialog } from 'radix-ui';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { QueryView } from '../../layout/page-states';
import { CopyButton } from '../../components/copy-button';
import { formatCount, formatDateTime, formatDuration, formatMoney, formatTokensPerSecond } from '../../format/format';
import type { ActivityDetail, ActivityRow } from './activity-types';

function Figure({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Detail({ detail }: { detail: ActivityDetail }) {
  const tokens = (value: number) => formatCount(value) + (detail.tokens_estimated ? ' (est.)' : '');
  return (
    <>
      <dl className="definition-grid">
        <Figure label="Time">{formatDateTime(detail.created_at)}</Figure>
        <Figure label="Status">
          {detail.status}
          {detail.error_code ? ` ${detail.error_code}` : ''}
          {detail.client_aborted ? ' (client left)' : ''}
        </Figure>
        <Figure label="Asked for">{detail.requested_model}</Figure>
        <Figure label="Served by">
          {detail.model ?? '—'}
          {detail.provider ? ` on ${detail.provider}` : ''}
        </Figure>
        <Figure label="Upstream model">{detail.upstream_model ?? '—'}</Figure>
        <Figure label="Key">{detail.key_name ?? '—'}</Figure>
        <Figure label="Surface">
          {detail.surface ?? '—'}
          {detail.streamed ? ', streamed' : ''}
        </Figure>
        <Figure label="App">{detail.app ?? detail.app_url ?? '—'}</Figure>
      </dl>
      <h3>Tokens and cost</h3>
      <dl className="definition-grid">
        <Figure label="Prompt">{tokens(detail.prompt_tokens)}</Figure>
        <Figure label="Cached">{tokens(detail.cached_tokens)}</Figure>
        <Figure label="Cache write">{tokens(detail.cache_write_tokens)}</Figure>
        <Figure label="Completion">{tokens(detail.completion_tokens)}</Figure>
        <Figure label="Reasoning">{tokens(detail.reasoning_tokens)}</Figure>
        <Figure label="Cost">{formatMoney(detail.cost, detail.currency)}</Figure>
        <Figure label="Latency">{formatDuration(detail.latency_ms)}</Figure>
        <Figure label="First token">{formatDuration(detail.time_to_first_token_ms)}</Figure>
        <Figure label="Speed">{formatTokensPerSecond(detail.tokens_per_second)}</Figure>
      </dl>
      <h3>Attempts</h3>
      {detail.attempts.length === 0 ? (
        <p className="muted">No provider was tried (the request was refused before routing).</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Provider</th>
                <th scope="col">Model</th>
                <th scope="col">Outcome</th>
                <th scope="col" className="number">
                  Latency
                </th>
              </tr>
            </thead>
            <tbody>
              {detail.attempts.map((attempt, index) => (
                <tr key={`${attempt.started_at}-${index}`}>
                  <td>{index + 1}</td>
                  <td>{attempt.provider}</td>
                  <td title={attempt.upstream_model}>{attempt.model}</td>
                  <td>
                    <span className={`badge ${attempt.status < 400 ? 'success' : 'danger'}`}>
                      {attempt.status}
                      {attempt.error_code ? ` ${attempt.error_code}` : ''}
                    </span>
                  </td>
                  <td className="number">{formatDuration(attempt.latency_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Content content={detail.content} />
    </>
  );
}

type KeptBody = NonNullable<ActivityDetail['content']>['request'];

/** Whole JSON is indented for reading; a stream, a cut body or plain text is shown as kept. */
function readable(text: string): string {
  if (!text.startsWith('{') && !text.startsWith('[')) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function Body({ title, body }: { title: string; body: KeptBody }) {
  return (
    <section aria-label={title}>
      <h4>
        {title}{' '}
        <span className="muted">
          {formatCount(body.bytes)} bytes{body.truncated ? ', cut at the size cap' : ''}
        </span>
      </h4>
      <pre className="kept-content" tabIndex={0}>
        {body.text ? readable(body.text) : '(empty)'}
      </pre>
    </section>
  );
}

/** The kept bodies, for keys with content logging on; otherwise a line saying how to turn it on. */
function Content({ content }: { content: ActivityDetail['content'] }) {
  return (
    <>
      <h3>Content</h3>
      {content === null ? (
        <p className="muted">Not kept. Turn on content logging on the key to keep request and answer bodies.</p>
      ) : (
        <>
          <Body title="Request body" body={content.request} />
          <Body title="Answer body" body={content.response} />
        </>
      )}
    </>
  );
}

/** One request in a side drawer: its figures and every provider tried, read from the detail route. */
export function ActivityDrawer({ row, onClose }: { row: ActivityRow | null; onClose: () => void }) {
  const detail = useQuery({
    queryKey: ['activity-detail', row?.id],
    enabled: row !== null,
    queryFn: () =>
      unwrap(api.GET('/api-account/user/activity/{request_id}', { params: { path: { request_id: row!.id } } })),
  });
  return (
    <Dialog.Root open={row !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog drawer">
          <Dialog.Title>Request</Dialog.Title>
          <Dialog.Description className="muted request-id">
            <code>{row?.request_id}</code>{' '}
            {row ? <CopyButton text={row.request_id} label="Copy request id" className="button small" /> : null}
          </Dialog.Description>
          {row ? (
            <QueryView query={detail} label="Loading request">
              {(data) => <Detail detail={data} />}
            </QueryView>
          ) : null}
          <div className="dialog-actions">
            <Dialog.Close className="button">Close</Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
