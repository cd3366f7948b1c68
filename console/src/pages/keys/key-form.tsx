import { useState, type FormEvent } from 'react';
import { formToKeyBody, type CreateKeyBody, type KeyFormProblems, type KeyFormValues } from './key-form-values';

export interface TemplateOption {
  id: string;
  name: string;
  description: string;
}

/**
 * Every field of a key (spec §2.1): name, description, routing mode, allowed models, rpm/tpm,
 * monthly quota, credit limit, expiration, routing template and default models in priority order.
 */
export function KeyForm({
  initial,
  templates,
  modelIds,
  submitLabel,
  onSubmit,
  onCancel,
  today = new Date().toISOString().slice(0, 10),
}: {
  initial: KeyFormValues;
  templates: TemplateOption[];
  modelIds: string[];
  submitLabel: string;
  onSubmit: (body: CreateKeyBody) => Promise<void>;
  onCancel: () => void;
  today?: string;
}) {
  const [values, setValues] = useState<KeyFormValues>(initial);
  const [problems, setProblems] = useState<KeyFormProblems>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [candidate, setCandidate] = useState('');
  const set = <K extends keyof KeyFormValues>(name: K, value: KeyFormValues[K]) =>
    setValues({ ...values, [name]: value });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = formToKeyBody(values, today);
    setFailure(null);
    if (result.problems) {
      setProblems(result.problems);
      return;
    }
    setProblems({});
    setBusy(true);
    try {
      await onSubmit(result.body);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'That did not work.');
    } finally {
      setBusy(false);
    }
  };

  const moveModel = (index: number, offset: number) => {
    const list = [...values.defaultModels];
    const [model] = list.splice(index, 1);
    list.splice(index + offset, 0, model);
    set('defaultModels', list);
  };
  const addModel = () => {
    const model = candidate.trim();
    if (!model || values.defaultModels.includes(model)) return;
    set('defaultModels', [...values.defaultModels, model]);
    setCandidate('');
  };

  const text = (name: keyof KeyFormValues, label: string, hint?: string, inputMode?: 'numeric' | 'decimal') => (
    <div className="field">
      <label htmlFor={`key-${name}`}>{label}</label>
      <input
        id={`key-${name}`}
        inputMode={inputMode}
        value={values[name] as string}
        aria-invalid={problems[name] ? true : undefined}
        aria-describedby={`key-${name}-hint`}
        onChange={(event) => set(name, event.target.value as never)}
      />
      <p id={`key-${name}-hint`} className={problems[name] ? 'field-problem' : 'field-hint'}>
        {problems[name] ?? hint}
      </p>
    </div>
  );

  return (
    <form className="form" onSubmit={(event) => void submit(event)} noValidate>
      <div className="form-row">
        {text('name', 'Name', 'Shown in lists and usage reports.')}
        {text('description', 'Description (optional)', 'What the key is for.')}
      </div>
      <fieldset>
        <legend>Routing</legend>
        <div className="form-row">
          <div className="field">
            <label htmlFor="key-routingMode">Routing mode</label>
            <select
              id="key-routingMode"
              value={values.routingMode}
              aria-describedby="key-routingMode-hint"
              onChange={(event) => set('routingMode', event.target.value as 'code' | 'manual')}
            >
              <option value="code">Code</option>
              <option value="manual">Manual</option>
            </select>
            {/* Short option labels so a narrow select never cuts them; the meaning goes in the hint. */}
            <p id="key-routingMode-hint" className="field-hint">
              {values.routingMode === 'code' ? 'The request names the model.' : 'The default models decide.'}
            </p>
          </div>
          <div className="field">
            <label htmlFor="key-templateId">Routing template</label>
            <select
              id="key-templateId"
              value={values.templateId}
              onChange={(event) => set('templateId', event.target.value)}
            >
              <option value="">None</option>
              {templates.map((template) => (
                <option key={template.id} value={template.id}>
                  {template.name}
                </option>
              ))}
            </select>
            <p className="field-hint">A template sets the default models for you.</p>
          </div>
        </div>
        {text(
          'allowedModels',
          'Allowed models',
          'Model ids or globs such as openai/*, separated by commas. Empty: every model.',
        )}
        {!values.templateId && (
          <div className="field">
            <span className="field-label" id="default-models-label">
              <strong>Default models</strong> <span className="muted">(fallback order, first is tried first)</span>
            </span>
            {values.defaultModels.length > 0 && (
              <ol className="ordered-models" aria-labelledby="default-models-label">
                {values.defaultModels.map((model, index) => (
                  <li key={model}>
                    <span className="mono">
                      {index + 1}. {model}
                    </span>
                    <span className="ordered-actions">
                      <button
                        type="button"
                        className="button small"
                        aria-label={`Move ${model} up`}
                        disabled={index === 0}
                        onClick={() => moveModel(index, -1)}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        className="button small"
                        aria-label={`Move ${model} down`}
                        disabled={index === values.defaultModels.length - 1}
                        onClick={() => moveModel(index, 1)}
                      >
                        ↓
                      </button>
                      <button
                        type="button"
                        className="button small"
                        aria-label={`Remove ${model}`}
                        onClick={() =>
                          set(
                            'defaultModels',
                            values.defaultModels.filter((other) => other !== model),
                          )
                        }
                      >
                        ✕
                      </button>
                    </span>
                  </li>
                ))}
              </ol>
            )}
            <div className="secret">
              <label htmlFor="key-add-model" className="visually-hidden">
                Model to add
              </label>
              <input
                id="key-add-model"
                list="key-model-ids"
                placeholder="Model id, e.g. openai/gpt-4o-mini"
                value={candidate}
                onChange={(event) => setCandidate(event.target.value)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter') {
                    event.preventDefault();
                    addModel();
                  }
                }}
              />
              <datalist id="key-model-ids">
                {modelIds.map((id) => (
                  <option key={id} value={id} />
                ))}
              </datalist>
              <button type="button" className="button" onClick={addModel}>
                Add model
              </button>
            </div>
            {problems.defaultModels && <p className="field-problem">{problems.defaultModels}</p>}
          </div>
        )}
      </fieldset>
      <fieldset>
        <legend>Limits (empty for none)</legend>
        <div className="form-row">
          {text('rpmLimit', 'Requests per minute', 'rpm', 'numeric')}
          {text('tpmLimit', 'Tokens per minute', 'tpm', 'numeric')}
          {text('monthlyQuota', 'Monthly quota (USD)', 'Spend per calendar month.', 'decimal')}
          {text('creditLimit', 'Credit limit (USD)', 'Spend over the key’s life.', 'decimal')}
        </div>
        <div className="field">
          <label htmlFor="key-expiresOn">Expires on</label>
          <input
            id="key-expiresOn"
            type="date"
            min={today}
            value={values.expiresOn}
            aria-invalid={problems.expiresOn ? true : undefined}
            aria-describedby="key-expiresOn-hint"
            onChange={(event) => set('expiresOn', event.target.value)}
          />
          <p id="key-expiresOn-hint" className={problems.expiresOn ? 'field-problem' : 'field-hint'}>
            {problems.expiresOn ?? 'The key stops working at the end of that day (UTC). Empty: never.'}
          </p>
        </div>
        <label className="inline-check">
          <input
            type="checkbox"
            checked={values.includeCost}
            onChange={(event) => set('includeCost', event.target.checked)}
          />
          Always include the cost (usage.cost) in answers
        </label>
      </fieldset>
      <fieldset>
        <legend>Content logging</legend>
        <label className="inline-check">
          <input
            type="checkbox"
            checked={values.logContent}
            aria-describedby="key-logContent-hint"
            onChange={(event) => set('logContent', event.target.checked)}
          />
          Keep request and answer bodies
        </label>
        <p id="key-logContent-hint" className="field-hint">
          Off by default. When on, each request’s body and its answer are kept (compressed, cut past a size cap) and
          shown on the request in Activity, then erased after the retention period or with your account.
        </p>
      </fieldset>
      {failure && (
        <p className="form-failure" role="alert">
          {failure}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
