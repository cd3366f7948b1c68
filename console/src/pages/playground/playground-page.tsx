import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { EmptyState, PageHeader, QueryView } from '../../layout/page-states';
import { useSession } from '../../session/session';
import { formatCount, formatDuration, formatMoney } from '../../format/format';
import { streamChat, turnCost, type ChatMessage, type StreamUsage } from './chat-stream';
import { chatModels } from './chat-models';

interface Turn {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  /** The model that wrote an answer: switching the model later must not relabel it. */
  model?: string;
  usage?: StreamUsage;
  cost?: number | null;
  firstTokenMs?: number;
  totalMs?: number;
  error?: string;
  stopped?: boolean;
}

/** The playground calls /v1 like any app, so it needs an API key of the user's: one kept in this browser. */
function usePlaygroundKey(userId: string): [string, (key: string) => void] {
  const storageKey = `console-playground-key:${userId}`;
  const [key, setKey] = useState(() => localStorage.getItem(storageKey) ?? '');
  const save = (next: string) => {
    if (next) localStorage.setItem(storageKey, next);
    else localStorage.removeItem(storageKey);
    setKey(next);
  };
  return [key, save];
}

function KeySetup({ onKey }: { onKey: (key: string) => void }) {
  const queryClient = useQueryClient();
  const [pasted, setPasted] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const create = async () => {
    setFailure(null);
    try {
      const created = await unwrap(
        api.POST('/api-account/user/api-keys', {
          body: { name: 'Playground', description: 'Created by the console playground' },
        }),
      );
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
      onKey(created.key);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'The key could not be created.');
    }
  };
  return (
    <section className="card form">
      <h2>An API key for the playground</h2>
      <p className="muted">
        The playground sends its requests to /v1 with one of your API keys, kept in this browser only. Requests are
        metered and charged like any other.
      </p>
      <button type="button" className="button primary" onClick={() => void create()}>
        Create a playground key
      </button>
      <div className="field">
        <label htmlFor="playground-paste-key">Or paste an existing key</label>
        <div className="secret">
          <input
            id="playground-paste-key"
            type="password"
            autoComplete="off"
            placeholder="sk-gw-…"
            value={pasted}
            onChange={(event) => setPasted(event.target.value)}
          />
          <button
            type="button"
            className="button"
            disabled={!pasted.startsWith('sk-')}
            onClick={() => onKey(pasted.trim())}
          >
            Use this key
          </button>
        </div>
      </div>
      {failure && (
        <p className="form-failure" role="alert">
          {failure}
        </p>
      )}
    </section>
  );
}

/** Pick a model and parameters, stream an answer token by token, see each turn's tokens, cost and latency. */
export default function PlaygroundPage() {
  const { user } = useSession();
  const [params] = useSearchParams();
  const [apiKey, setApiKey] = usePlaygroundKey(user?.id ?? 'anonymous');
  const models = useQuery({
    queryKey: ['v1-models'],
    queryFn: () => unwrap(api.GET('/v1/models')),
    staleTime: 300_000,
  });
  const [model, setModel] = useState(params.get('model') ?? '');
  const [system, setSystem] = useState('You are a helpful assistant.');
  const [temperature, setTemperature] = useState(0.7);
  const [maxTokens, setMaxTokens] = useState('512');
  const [prompt, setPrompt] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [running, setRunning] = useState<AbortController | null>(null);
  const nextId = useRef(1);
  const transcriptEnd = useRef<HTMLDivElement>(null);

  const offered = useMemo(() => (models.data ? chatModels(models.data.data) : []), [models.data]);
  useEffect(() => {
    if (offered.length > 0 && !offered.some((entry) => entry.id === model)) setModel(offered[0].id);
  }, [model, offered]);
  useEffect(() => {
    transcriptEnd.current?.scrollIntoView?.({ block: 'nearest' });
  }, [turns]);

  const pricing = useQuery({
    queryKey: ['catalog-model', model],
    enabled: model !== '',
    queryFn: () =>
      unwrap(
        api.GET('/api-account/models/{*}', {
          params: { path: { '*': model } },
          pathSerializer: (pathname) => pathname.replace('{*}', model.split('/').map(encodeURIComponent).join('/')),
        }),
      ),
    staleTime: 300_000,
  });

  const patchTurn = (id: number, change: (turn: Turn) => Partial<Turn>) =>
    setTurns((all) => all.map((turn) => (turn.id === id ? { ...turn, ...change(turn) } : turn)));

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = prompt.trim();
    if (!text || running || !model) return;
    const userTurn: Turn = { id: nextId.current++, role: 'user', content: text };
    const answer: Turn = { id: nextId.current++, role: 'assistant', content: '', model };
    const history: ChatMessage[] = [
      ...(system.trim() ? [{ role: 'system' as const, content: system.trim() }] : []),
      ...turns.filter((turn) => !turn.error).map((turn) => ({ role: turn.role, content: turn.content })),
      { role: 'user', content: text },
    ];
    setTurns((all) => [...all, userTurn, answer]);
    setPrompt('');
    const controller = new AbortController();
    setRunning(controller);
    const started = performance.now();
    try {
      await streamChat({
        apiKey,
        model,
        messages: history,
        temperature,
        maxTokens: Number(maxTokens) > 0 ? Number(maxTokens) : undefined,
        signal: controller.signal,
        onEvent: (streamEvent) => {
          if (streamEvent.kind === 'delta')
            patchTurn(answer.id, (turn) => ({
              content: turn.content + streamEvent.text,
              firstTokenMs: turn.firstTokenMs ?? performance.now() - started,
            }));
          else if (streamEvent.kind === 'usage')
            patchTurn(answer.id, () => ({
              usage: streamEvent.usage,
              cost: pricing.data?.pricing ? turnCost(streamEvent.usage, pricing.data.pricing) : null,
            }));
          else if (streamEvent.kind === 'error') patchTurn(answer.id, () => ({ error: streamEvent.message }));
        },
      });
    } catch (error) {
      if (controller.signal.aborted) patchTurn(answer.id, () => ({ stopped: true }));
      else {
        const message = error instanceof Error ? error.message : 'The request failed.';
        patchTurn(answer.id, () => ({ error: message }));
        if (error instanceof Error && 'status' in error && error.status === 401) setApiKey('');
      }
    } finally {
      patchTurn(answer.id, () => ({ totalMs: performance.now() - started }));
      setRunning(null);
    }
  };

  if (!user) return null;
  return (
    <>
      <PageHeader
        title="Playground"
        description="Chat with any model this gateway serves, streamed token by token."
        actions={
          apiKey ? (
            <button type="button" className="button" onClick={() => setApiKey('')}>
              Forget the playground key
            </button>
          ) : undefined
        }
      />
      {!apiKey ? (
        <KeySetup onKey={setApiKey} />
      ) : (
        <QueryView query={models} label="Loading models">
          {() =>
            offered.length === 0 ? (
              <EmptyState title="No models are configured">
                <p>Configure a provider to try models here.</p>
              </EmptyState>
            ) : (
              <div className="playground">
                <aside className="card form" aria-label="Settings">
                  <div className="field">
                    <label htmlFor="playground-model">Model</label>
                    <select id="playground-model" value={model} onChange={(event) => setModel(event.target.value)}>
                      {offered.map((entry) => (
                        <option key={entry.id} value={entry.id}>
                          {entry.id}
                        </option>
                      ))}
                    </select>
                    {pricing.data && (
                      <p className="field-hint">
                        <Link to={`/models/${model}`}>Model page</Link>
                      </p>
                    )}
                  </div>
                  <div className="field">
                    <label htmlFor="playground-system">System prompt</label>
                    <textarea
                      id="playground-system"
                      rows={4}
                      value={system}
                      onChange={(event) => setSystem(event.target.value)}
                    />
                  </div>
                  <div className="field">
                    <label htmlFor="playground-temperature">Temperature: {temperature.toFixed(1)}</label>
                    <input
                      id="playground-temperature"
                      type="range"
                      min={0}
                      max={2}
                      step={0.1}
                      value={temperature}
                      onChange={(event) => setTemperature(Number(event.target.value))}
                    />
                  </div>
                  <div className="field">
                    <label htmlFor="playground-max-tokens">Max tokens</label>
                    <input
                      id="playground-max-tokens"
                      inputMode="numeric"
                      value={maxTokens}
                      onChange={(event) => setMaxTokens(event.target.value.replace(/\D/g, ''))}
                    />
                  </div>
                  <button
                    type="button"
                    className="button"
                    disabled={turns.length === 0 || running !== null}
                    onClick={() => setTurns([])}
                  >
                    Clear conversation
                  </button>
                </aside>
                <section aria-label="Conversation">
                  <div className="transcript" aria-live="polite">
                    {turns.length === 0 && (
                      <EmptyState title="Say something">
                        <p>Type a message below; the answer streams in as it is written.</p>
                      </EmptyState>
                    )}
                    {turns.map((turn) => (
                      <article key={turn.id} className={`turn ${turn.role}`} data-testid={`turn-${turn.role}`}>
                        <div className="turn-role">{turn.role === 'user' ? 'You' : turn.model}</div>
                        {turn.content || (turn.role === 'assistant' && !turn.error && running ? '…' : '')}
                        {turn.error && (
                          <p className="field-problem" role="alert">
                            {turn.error}
                          </p>
                        )}
                        {turn.role === 'assistant' && (turn.usage || turn.totalMs !== undefined) && (
                          <div className="turn-stats" data-testid="turn-stats">
                            {turn.usage && (
                              <span>
                                {formatCount(turn.usage.prompt_tokens)} in · {formatCount(turn.usage.completion_tokens)}{' '}
                                out tokens
                              </span>
                            )}
                            {turn.cost !== undefined && turn.cost !== null && <span>{formatMoney(turn.cost)}</span>}
                            {turn.firstTokenMs !== undefined && (
                              <span>first token {formatDuration(turn.firstTokenMs)}</span>
                            )}
                            {turn.totalMs !== undefined && <span>total {formatDuration(turn.totalMs)}</span>}
                            {turn.stopped && <span>stopped</span>}
                          </div>
                        )}
                      </article>
                    ))}
                    <div ref={transcriptEnd} />
                  </div>
                  <form className="composer" onSubmit={(event) => void send(event)}>
                    <label htmlFor="playground-prompt" className="visually-hidden">
                      Message
                    </label>
                    <textarea
                      id="playground-prompt"
                      rows={3}
                      placeholder="Ask anything… (Ctrl+Enter sends)"
                      value={prompt}
                      onChange={(event) => setPrompt(event.target.value)}
                      onKeyDown={(event) => {
                        if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void send(event);
                      }}
                    />
                    <div className="composer-actions">
                      {running ? (
                        <button type="button" className="button danger" onClick={() => running.abort()}>
                          Stop
                        </button>
                      ) : (
                        <button type="submit" className="button primary" disabled={!prompt.trim()}>
                          Send
                        </button>
                      )}
                    </div>
                  </form>
                </section>
              </div>
            )
          }
        </QueryView>
      )}
    </>
  );
}
