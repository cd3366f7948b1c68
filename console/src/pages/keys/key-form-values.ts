import type { paths } from '../../api/schema';

export type CreateKeyBody = paths['/api-account/user/api-keys']['post']['requestBody']['content']['application/json'];
export type ApiKey =
  paths['/api-account/user/api-keys/{key_id}']['get']['responses']['200']['content']['application/json'];

/** What the key form edits: text as typed, turned into the API's body by formToKeyBody. */
export interface KeyFormValues {
  name: string;
  description: string;
  routingMode: 'code' | 'manual';
  /** Comma or line separated model ids or globs; empty = every model. */
  allowedModels: string;
  rpmLimit: string;
  tpmLimit: string;
  monthlyQuota: string;
  creditLimit: string;
  /** YYYY-MM-DD from a date input, the key expiring at the end of that day (UTC); empty = never. */
  expiresOn: string;
  templateId: string;
  /** In priority order, first used first. */
  defaultModels: string[];
  /** Every answer made with the key includes usage.cost. */
  includeCost: boolean;
  /** Keep request and answer bodies (shown on each request in Activity). */
  logContent: boolean;
}

export const EMPTY_KEY_FORM: KeyFormValues = {
  name: '',
  description: '',
  routingMode: 'code',
  allowedModels: '',
  rpmLimit: '',
  tpmLimit: '',
  monthlyQuota: '',
  creditLimit: '',
  expiresOn: '',
  templateId: '',
  defaultModels: [],
  includeCost: false,
  logContent: false,
};

export type KeyFormProblems = Partial<Record<keyof KeyFormValues, string>>;

function positiveInteger(text: string): number | null | 'bad' {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1) return 'bad';
  return Number(trimmed);
}

function usdAmount(text: string): number | null | 'bad' {
  const trimmed = text.trim().replace(/^\$/, '');
  if (trimmed === '') return null;
  if (!/^\d+(\.\d{1,9})?$/.test(trimmed)) return 'bad';
  return Number(trimmed);
}

/**
 * The form's values → the API's create/update body, or the problems to show beside the fields.
 * Empty limits mean "no limit" (null), as the API has it; `today` bounds the expiration date.
 */
export function formToKeyBody(
  values: KeyFormValues,
  today: string,
): { body: CreateKeyBody; problems: null } | { body: null; problems: KeyFormProblems } {
  const problems: KeyFormProblems = {};
  const name = values.name.trim();
  if (name.length === 0) problems.name = 'Give the key a name.';
  else if (name.length > 100) problems.name = 'Use at most 100 characters.';
  const allowed = values.allowedModels
    .split(/[\s,]+/)
    .map((model) => model.trim())
    .filter(Boolean);
  const rpm = positiveInteger(values.rpmLimit);
  if (rpm === 'bad') problems.rpmLimit = 'A whole number of requests per minute, 1 or more.';
  const tpm = positiveInteger(values.tpmLimit);
  if (tpm === 'bad') problems.tpmLimit = 'A whole number of tokens per minute, 1 or more.';
  const quota = usdAmount(values.monthlyQuota);
  if (quota === 'bad') problems.monthlyQuota = 'An amount in USD, like 50 or 12.50.';
  const credit = usdAmount(values.creditLimit);
  if (credit === 'bad') problems.creditLimit = 'An amount in USD, like 100.';
  let expiration: string | null = null;
  if (values.expiresOn) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values.expiresOn)) problems.expiresOn = 'Pick a date.';
    else if (values.expiresOn < today) problems.expiresOn = 'Pick today or a later date.';
    else expiration = `${values.expiresOn}T23:59:59Z`;
  }
  const defaults = values.defaultModels.map((model) => model.trim()).filter(Boolean);
  if (new Set(defaults).size !== defaults.length) problems.defaultModels = 'Each model may appear once.';
  if (values.routingMode === 'manual' && defaults.length === 0 && !values.templateId)
    problems.defaultModels = 'Manual routing needs at least one default model (or a template).';
  if (Object.keys(problems).length > 0) return { body: null, problems };
  const body: CreateKeyBody = {
    name,
    description: values.description.trim(),
    routing_mode: values.routingMode,
    allowed_models: allowed.length > 0 ? allowed : null,
    rpm_limit: rpm as number | null,
    tpm_limit: tpm as number | null,
    monthly_quota: quota as number | null,
    credit_limit: credit as number | null,
    expiration,
    template_id: values.templateId || null,
    include_cost: values.includeCost,
    log_content: values.logContent,
  };
  // A template brings its own default models; a list given alongside would override it.
  if (!values.templateId) body.default_models = defaults.map((model_id, index) => ({ model_id, priority: index + 1 }));
  return { body, problems: null };
}

/** An existing key → the form's values, for editing. */
export function keyToForm(key: ApiKey): KeyFormValues {
  const amount = (value: number | null) => (value === null ? '' : String(value));
  return {
    name: key.name,
    description: key.description,
    routingMode: key.routing_mode,
    allowedModels: (key.allowed_models ?? []).join(', '),
    rpmLimit: amount(key.rpm_limit),
    tpmLimit: amount(key.tpm_limit),
    monthlyQuota: amount(key.monthly_quota),
    creditLimit: amount(key.credit_limit),
    expiresOn: key.expiration ? key.expiration.slice(0, 10) : '',
    templateId: key.template_id ?? '',
    defaultModels: [...key.default_models].sort((a, b) => a.priority - b.priority).map((entry) => entry.model_id),
    includeCost: key.include_cost,
    logContent: key.log_content,
  };
}
