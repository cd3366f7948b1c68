import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { EmptyState, PageHeader, QueryView } from '../../layout/page-states';
import { StatusBadge } from '../../components/status-badge';
import { formatCount } from '../../format/format';

/** The providers this gateway routes to, with their status from measured health. */
export default function ProvidersPage() {
  const providers = useQuery({
    queryKey: ['providers'],
    queryFn: () => unwrap(api.GET('/api-account/providers')),
    refetchInterval: 30_000,
  });
  return (
    <>
      <PageHeader title="Providers" description="Who serves the models here, and how they are doing right now." />
      <QueryView query={providers} label="Loading providers">
        {({ data }) =>
          data.length === 0 ? (
            <EmptyState title="No providers configured">
              <p>Add one in gateway.config.yaml or set a credential variable such as OPENAI_API_KEY.</p>
            </EmptyState>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Provider</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="number">
                      Models
                    </th>
                    <th scope="col">Input</th>
                    <th scope="col">Output</th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((provider) => (
                    <tr key={provider.id}>
                      <td>
                        <Link to={`/providers/${provider.id}`}>{provider.name}</Link>
                        <div className="muted mono">{provider.id}</div>
                      </td>
                      <td>
                        <StatusBadge status={provider.status} />
                      </td>
                      <td className="number">{formatCount(provider.model_count)}</td>
                      <td>{provider.input_modalities.join(', ')}</td>
                      <td>{provider.output_modalities.join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
    </>
  );
}
