import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { CatalogModel } from '../../api/answers';
import { PageHeader, QueryView } from '../../layout/page-states';
import { CopyButton } from '../../components/copy-button';
import { CodeSnippetsPanel } from '../../components/code-snippets-panel';
import { StatusBadge } from '../../components/status-badge';
import {
  formatContext,
  formatCount,
  formatDuration,
  formatPercent,
  formatPricePerMillion,
  formatTokensPerSecond,
} from '../../format/format';

function ModelDetail({ model }: { model: CatalogModel }) {
  return (
    <>
      <PageHeader
        title={model.name}
        description={
          <>
            <span className="mono">{model.id}</span> · by {model.author}
          </>
        }
        actions={
          <>
            <CopyButton text={model.id} label="Copy model id" />
            {model.routable && (
              <Link className="button primary" to={`/playground?model=${encodeURIComponent(model.id)}`}>
                Try in playground
              </Link>
            )}
          </>
        }
      />
      {model.description && <p>{model.description}</p>}
      <section className="card section">
        <dl className="definition-grid">
          <div>
            <dt>Input price</dt>
            <dd>{formatPricePerMillion(model.pricing?.prompt)}</dd>
          </div>
          <div>
            <dt>Output price</dt>
            <dd>{formatPricePerMillion(model.pricing?.completion)}</dd>
          </div>
          {model.pricing?.cache_read && (
            <div>
              <dt>Cached input</dt>
              <dd>{formatPricePerMillion(model.pricing?.cache_read)}</dd>
            </div>
          )}
          <div>
            <dt>Context</dt>
            <dd>{formatContext(model.context_length)}</dd>
          </div>
          <div>
            <dt>Max output</dt>
            <dd>{formatContext(model.max_output_tokens)}</dd>
          </div>
          <div>
            <dt>Input</dt>
            <dd>{model.input_modalities.join(', ') || '—'}</dd>
          </div>
          <div>
            <dt>Output</dt>
            <dd>{model.output_modalities.join(', ') || '—'}</dd>
          </div>
          <div>
            <dt>Available here</dt>
            <dd>{model.routable ? 'Yes' : 'No provider configured'}</dd>
          </div>
        </dl>
        {(model.capabilities.length > 0 || model.tags.length > 0) && (
          <div className="badges" style={{ marginTop: '1rem' }} aria-label="Capabilities and tags">
            {model.capabilities.map((capability) => (
              <span key={capability} className="badge accent">
                {capability}
              </span>
            ))}
            {model.tags.map((tag) => (
              <span key={tag} className="badge">
                {tag}
              </span>
            ))}
          </div>
        )}
      </section>
      <section className="section">
        <h2>Endpoints</h2>
        {model.endpoints.length === 0 ? (
          <p className="muted">No configured provider serves this model on this gateway.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Provider</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="number">
                    Price in / out
                  </th>
                  <th scope="col" className="number">
                    Context
                  </th>
                  <th scope="col" className="number">
                    Requests (24h)
                  </th>
                  <th scope="col" className="number">
                    Uptime
                  </th>
                  <th scope="col" className="number">
                    Latency / first token p50
                  </th>
                  <th scope="col" className="number">
                    Throughput
                  </th>
                </tr>
              </thead>
              <tbody>
                {model.endpoints.map((endpoint) => (
                  <tr key={`${endpoint.provider}/${endpoint.upstream_model}`}>
                    <td>
                      <Link to={`/providers/${endpoint.provider}`}>{endpoint.provider_name}</Link>
                    </td>
                    <td>
                      <StatusBadge status={endpoint.status} />
                    </td>
                    {/* Paired values share a cell so ten measures fit beside the sidebar at 1024 px. */}
                    <td className="number">
                      <div>{formatPricePerMillion(endpoint.pricing?.prompt)}</div>
                      <div>{formatPricePerMillion(endpoint.pricing?.completion)}</div>
                    </td>
                    <td className="number">{formatContext(endpoint.context_length)}</td>
                    <td className="number">{formatCount(endpoint.stats_24h?.requests ?? 0)}</td>
                    <td className="number">{formatPercent(endpoint.stats_24h?.uptime)}</td>
                    <td className="number">
                      <div>{formatDuration(endpoint.stats_24h?.latency_ms.p50)}</div>
                      <div>{formatDuration(endpoint.stats_24h?.ttft_ms.p50)}</div>
                    </td>
                    <td className="number">{formatTokensPerSecond(endpoint.stats_24h?.tokens_per_second)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {model.endpoints.length > 0 && (
        <section className="section">
          <h2>Use it</h2>
          <CodeSnippetsPanel modelId={model.id} />
        </section>
      )}
      {model.links.length > 0 && (
        <section className="section">
          <h2>Links</h2>
          <ul>
            {model.links.map((link) => (
              <li key={link.url}>
                <a href={link.url} rel="noreferrer" target="_blank">
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

/** One model: prices, context, modalities, endpoints with their live statistics. */
export default function ModelPage() {
  const id = useParams()['*'] ?? '';
  const model = useQuery({
    queryKey: ['catalog-model', id],
    queryFn: () =>
      unwrap(
        api.GET('/api-account/models/{*}', {
          params: { path: { '*': id } },
          // Model ids contain slashes; the route is a wildcard, so the id goes in as a path, not one encoded segment.
          pathSerializer: (pathname, path) =>
            pathname.replace('{*}', String(path['*']).split('/').map(encodeURIComponent).join('/')),
        }),
      ),
    refetchInterval: 30_000,
  });
  return (
    <>
      <p>
        <Link to="/models">← All models</Link>
      </p>
      <QueryView query={model} label="Loading the model">
        {(data) => <ModelDetail model={data} />}
      </QueryView>
    </>
  );
}
