import type { UsageFailure } from '../api/answers';
import { formatCount } from '../format/format';

/** Failed requests apart from traffic, by status and error code; model ids as text (they may not exist). */
export function FailuresTable({ failures }: { failures: UsageFailure[] }) {
  return (
    <section className="card section" aria-labelledby="failures-heading">
      <h2 id="failures-heading">Failed requests</h2>
      <p className="muted">
        Not counted above when refused before reaching a model (unknown model, no credits, limits).
      </p>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Error code</th>
              <th scope="col" className="number">
                Requests
              </th>
              <th scope="col">Models</th>
            </tr>
          </thead>
          <tbody>
            {failures.map((failure) => (
              <tr key={`${failure.status} ${failure.error_code ?? ''}`}>
                <td>{failure.status}</td>
                <td className="mono">{failure.error_code ?? '—'}</td>
                <td className="number">{formatCount(failure.requests)}</td>
                <td className="mono">{failure.models.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
