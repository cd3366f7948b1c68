import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { QueryView } from '../../layout/page-states';
import { formatDateTime } from '../../format/format';

const SESSIONS = ['sessions'];

/** A browser name from a user-agent string, enough to tell sessions apart; the full string is its title. */
function deviceOf(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Chrome\//.test(userAgent)
      ? 'Chrome'
      : /Firefox\//.test(userAgent)
        ? 'Firefox'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : userAgent.split(/[ /]/)[0];
  const system = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : null;
  return system ? `${browser} on ${system}` : browser;
}

/** Where this account is signed in; any other session can be ended, one or all at once. */
export function SessionsSection() {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: SESSIONS, queryFn: () => unwrap(api.GET('/api-account/user/sessions')) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: SESSIONS });
  const endOne = useMutation({
    mutationFn: (sessionId: string) =>
      unwrap(api.DELETE('/api-account/user/sessions/{session_id}', { params: { path: { session_id: sessionId } } })),
    onSuccess: refresh,
  });
  const endOthers = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api-account/user/sessions')),
    onSuccess: refresh,
  });
  const failure = endOne.error ?? endOthers.error;

  return (
    <section className="section">
      <h2>Sessions</h2>
      <QueryView query={sessions} label="Loading sessions">
        {({ data }) => (
          <>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Device</th>
                    <th scope="col">Address</th>
                    <th scope="col">Signed in</th>
                    <th scope="col">Last active</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((session) => (
                    <tr key={session.id}>
                      <td title={session.user_agent ?? undefined}>
                        {deviceOf(session.user_agent)}
                        {session.current && (
                          <>
                            {' '}
                            <span className="badge success">this session</span>
                          </>
                        )}
                      </td>
                      <td className="mono">{session.ip_address ?? '—'}</td>
                      <td>{formatDateTime(session.created_at)}</td>
                      <td>{formatDateTime(session.updated_at)}</td>
                      <td>
                        {!session.current && (
                          <button
                            type="button"
                            className="button small"
                            aria-label={`Sign out the session of ${deviceOf(session.user_agent)} from ${formatDateTime(session.created_at)}`}
                            disabled={endOne.isPending}
                            onClick={() => endOne.mutate(session.id)}
                          >
                            Sign out
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {data.length > 1 && (
              <div className="page-actions section">
                <button
                  type="button"
                  className="button"
                  disabled={endOthers.isPending}
                  onClick={() => endOthers.mutate()}
                >
                  Sign out every other session
                </button>
              </div>
            )}
          </>
        )}
      </QueryView>
      {failure && (
        <p className="form-failure" role="alert">
          {failure.message}
        </p>
      )}
    </section>
  );
}
