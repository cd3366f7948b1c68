import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** The ids of the models this gateway serves (one cache entry with the keys page). */
export function useRoutableModelIds(): Set<string> | undefined {
  const models = useQuery({
    queryKey: ['v1-models'],
    queryFn: () => unwrap(api.GET('/v1/models')),
    staleTime: 300_000,
  });
  return models.data ? new Set(models.data.data.map((model) => model.id)) : undefined;
}

/**
 * A model id that links to its page only when the gateway knows the model: an id somebody asked for
 * that does not exist (`nope/model`) stays plain text instead of leading to an error page.
 */
export function ModelLink({ id, known }: { id: string; known: Set<string> | undefined }) {
  return known?.has(id) ? <Link to={`/models/${id}`}>{id}</Link> : <span className="mono">{id}</span>;
}
