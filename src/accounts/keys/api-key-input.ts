import { InvalidRequestError } from '../../shared/errors.js';
import { decimalToUnits } from '../../shared/decimal.js';
import type { ApiKeysTable } from '../../store/schema.js';
import { globToRegExp, type DefaultModel, type RoutingMode } from '../../routing/api-key-record.js';
import type { ApiKeyChanges } from '../../keys/api-key-repository.js';
import type { CreateApiKeyBody, PutDefaultModelsBody, UpdateApiKeyBody } from './api-key-schemas.js';
import type { NewApiKey } from '../../keys/create-api-key.js';
import type { RoutingTemplate } from '../../routing/resolve-routing-templates.js';

/**
 * The rules of the key API a schema cannot express, as pure functions from a validated body to
 * the values stored: the expiration lies in the future, default models are served here, have
 * unique priorities and are allowed by allowed_models, templates exist, manual routing has models
 * to route to. Each failure is a 400 naming the parameter.
 */
/** The routing templates in service (a Map, or a view that follows config reloads). */
export type TemplateLookup = Pick<ReadonlyMap<string, RoutingTemplate>, 'get' | 'has'>;

export interface KeyInputContext {
  now: number;
  isKnownModel(modelId: string): boolean;
  templates: TemplateLookup;
}

/** The routing settings checked together, since each constrains the others. */
interface RoutingSettings {
  routingMode: RoutingMode;
  allowedModels: string[] | null;
  templateId: string | null;
  defaultModels: DefaultModel[];
}

const MICRO_DIGITS = 6;

export function usdToMicros(value: number, param: string): number {
  try {
    return decimalToUnits(value, MICRO_DIGITS);
  } catch {
    throw new InvalidRequestError(
      `Invalid '${param}': use at most ${MICRO_DIGITS} decimal places (USD).`,
      param,
      'invalid_value',
    );
  }
}

export function parseExpiration(value: string, now: number): number {
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new InvalidRequestError(
      `Invalid 'expiration': ${JSON.stringify(value)} is not an ISO 8601 date-time.`,
      'expiration',
      'invalid_value',
    );
  if (at <= now)
    throw new InvalidRequestError(
      `Invalid 'expiration': ${value} is not in the future.`,
      'expiration',
      'invalid_value',
    );
  return at;
}

/**
 * `expiration`, or its alias `expires_at` (the record's old name): one value, or undefined when
 * neither is sent. Both with different values is a 400 rather than a silent pick.
 */
function requestedExpiration(body: {
  expiration?: string | null;
  expires_at?: string | null;
}): string | null | undefined {
  if (body.expiration === undefined) return body.expires_at;
  if (body.expires_at === undefined) return body.expiration;
  const same =
    body.expiration === body.expires_at ||
    (body.expiration !== null &&
      body.expires_at !== null &&
      Date.parse(body.expiration) === Date.parse(body.expires_at));
  if (!same)
    throw new InvalidRequestError(
      "Invalid 'expires_at': it is an alias of 'expiration' and differs from it; send only 'expiration'.",
      'expires_at',
      'invalid_value',
    );
  return body.expiration;
}

function checkDefaultModels(defaultModels: DefaultModel[], context: KeyInputContext): void {
  const priorities = new Set<number>();
  const models = new Set<string>();
  defaultModels.forEach((item, index) => {
    if (priorities.has(item.priority)) {
      throw new InvalidRequestError(
        `Invalid 'default_models': priority ${item.priority} appears more than once; each priority must be unique.`,
        'default_models',
        'duplicate_priority',
      );
    }
    priorities.add(item.priority);
    const param = `default_models[${index}].model_id`;
    if (models.has(item.model_id))
      throw new InvalidRequestError(
        `Invalid '${param}': '${item.model_id}' appears more than once.`,
        param,
        'invalid_value',
      );
    models.add(item.model_id);
    if (!context.isKnownModel(item.model_id)) {
      throw new InvalidRequestError(
        `Invalid '${param}': the model '${item.model_id}' is not served by this gateway (see GET /v1/models).`,
        param,
        'model_not_found',
      );
    }
  });
}

/** template_id without default_models adopts the template's models that are served here. */
function resolveTemplate(templateId: string, context: KeyInputContext): DefaultModel[] {
  const template = context.templates.get(templateId);
  if (!template) {
    throw new InvalidRequestError(
      `Invalid 'template_id': no routing template '${templateId}' (see GET /api-account/routing-templates).`,
      'template_id',
      'template_not_found',
    );
  }
  const served = template.defaultModels.filter((item) => context.isKnownModel(item.model_id));
  if (served.length === 0) {
    throw new InvalidRequestError(
      `Invalid 'template_id': none of the models of template '${templateId}' is served by this gateway.`,
      'template_id',
      'template_unavailable',
    );
  }
  return served.map((item) => ({ model_id: item.model_id, priority: item.priority }));
}

/**
 * Applies the routing fields of a request to the current settings. Sending default_models
 * without template_id makes the list the key's own (template_id becomes null).
 */
function mergeRouting(
  current: RoutingSettings,
  body: {
    routing_mode?: RoutingMode;
    allowed_models?: string[] | null;
    template_id?: string | null;
    default_models?: DefaultModel[];
  },
  context: KeyInputContext,
): RoutingSettings {
  const next = { ...current };
  if (body.routing_mode !== undefined) next.routingMode = body.routing_mode;
  if (body.allowed_models !== undefined)
    next.allowedModels = body.allowed_models === null ? null : [...new Set(body.allowed_models)];
  if (body.default_models !== undefined) {
    checkDefaultModels(body.default_models, context);
    next.defaultModels = [...body.default_models].sort((a, b) => a.priority - b.priority);
    next.templateId = null;
  }
  if (body.template_id !== undefined) {
    next.templateId = body.template_id;
    if (body.template_id !== null) {
      if (body.default_models === undefined) next.defaultModels = resolveTemplate(body.template_id, context);
      else if (!context.templates.has(body.template_id)) resolveTemplate(body.template_id, context);
    }
  }
  checkRoutingSettings(next);
  return next;
}

function checkRoutingSettings(settings: RoutingSettings): void {
  if (settings.routingMode === 'manual' && settings.defaultModels.length === 0) {
    throw new InvalidRequestError(
      "Invalid 'default_models': routing_mode 'manual' routes only to the key's default models, so give at least one (or a template_id).",
      'default_models',
      'missing_default_models',
    );
  }
  if (settings.allowedModels) {
    const matchers = settings.allowedModels.map(globToRegExp);
    settings.defaultModels.forEach((item, index) => {
      if (!matchers.some((matcher) => matcher.test(item.model_id))) {
        const param = `default_models[${index}].model_id`;
        throw new InvalidRequestError(
          `Invalid '${param}': '${item.model_id}' is outside the key's allowed_models.`,
          param,
          'model_not_allowed',
        );
      }
    });
  }
}

function currentRouting(row: ApiKeysTable): RoutingSettings {
  return {
    routingMode: row.routing_mode === 'manual' ? 'manual' : 'code',
    allowedModels: row.allowed_models ? (JSON.parse(row.allowed_models) as string[]) : null,
    templateId: row.template_id,
    defaultModels: row.default_models ? (JSON.parse(row.default_models) as DefaultModel[]) : [],
  };
}

function routingColumns(
  settings: RoutingSettings,
): Pick<ApiKeysTable, 'routing_mode' | 'allowed_models' | 'template_id' | 'default_models'> {
  return {
    routing_mode: settings.routingMode,
    allowed_models: settings.allowedModels ? JSON.stringify(settings.allowedModels) : null,
    template_id: settings.templateId,
    default_models: settings.defaultModels.length > 0 ? JSON.stringify(settings.defaultModels) : null,
  };
}

const EMPTY_ROUTING: RoutingSettings = {
  routingMode: 'code',
  allowedModels: null,
  templateId: null,
  defaultModels: [],
};

/** A create request → the new key's settings. */
export function toNewApiKey(userId: string, body: CreateApiKeyBody, context: KeyInputContext): NewApiKey {
  const routing = mergeRouting(EMPTY_ROUTING, body, context);
  const expiration = requestedExpiration(body);
  return {
    userId,
    name: body.name.trim(),
    description: body.description ?? '',
    routingMode: routing.routingMode,
    allowedModels: routing.allowedModels,
    templateId: routing.templateId,
    defaultModels: routing.defaultModels,
    rpmLimit: body.rpm_limit ?? null,
    tpmLimit: body.tpm_limit ?? null,
    monthlyQuotaMicros: body.monthly_quota == null ? null : usdToMicros(body.monthly_quota, 'monthly_quota'),
    creditLimitMicros: body.credit_limit == null ? null : usdToMicros(body.credit_limit, 'credit_limit'),
    expiresAt: expiration == null ? null : parseExpiration(expiration, context.now),
    includeCost: body.include_cost === true,
    logContent: body.log_content === true,
  };
}

/**
 * A PATCH request → the columns to change. Fields left out keep their value; null clears. A record
 * as GET shows it may come back whole: read-only fields are ignored (key_id must be this key's),
 * and an expiration equal to the stored one is no change, even once it has passed.
 */
export function toApiKeyChanges(row: ApiKeysTable, body: UpdateApiKeyBody, context: KeyInputContext): ApiKeyChanges {
  if (body.key_id !== undefined && body.key_id !== row.id)
    throw new InvalidRequestError(
      `Invalid 'key_id': it is read-only; this request changes the key '${row.id}'.`,
      'key_id',
      'invalid_value',
    );
  const expiration = requestedExpiration(body);
  const changes: ApiKeyChanges = {
    ...routingColumns(mergeRouting(currentRouting(row), body, context)),
    updated_at: context.now,
  };
  if (body.name !== undefined) changes.name = body.name.trim();
  if (body.description !== undefined) changes.description = body.description;
  if (body.rpm_limit !== undefined) changes.rpm_limit = body.rpm_limit;
  if (body.tpm_limit !== undefined) changes.tpm_limit = body.tpm_limit;
  if (body.monthly_quota !== undefined)
    changes.monthly_quota_micros =
      body.monthly_quota === null ? null : usdToMicros(body.monthly_quota, 'monthly_quota');
  if (body.credit_limit !== undefined)
    changes.credit_limit_micros = body.credit_limit === null ? null : usdToMicros(body.credit_limit, 'credit_limit');
  if (expiration !== undefined && !(expiration !== null && Date.parse(expiration) === row.expires_at))
    changes.expires_at = expiration === null ? null : parseExpiration(expiration, context.now);
  if (body.disabled !== undefined) changes.disabled = body.disabled ? 1 : 0;
  if (body.include_cost !== undefined) changes.include_cost = body.include_cost ? 1 : 0;
  if (body.log_content !== undefined) changes.log_content = body.log_content ? 1 : 0;
  return changes;
}

/** PUT default-models: the whole list (or a template's), replacing the previous one. */
export function toDefaultModelsChanges(
  row: ApiKeysTable,
  body: PutDefaultModelsBody,
  context: KeyInputContext,
): ApiKeyChanges {
  if (body.default_models === undefined && (body.template_id === undefined || body.template_id === null)) {
    throw new InvalidRequestError(
      "Missing required parameter: 'default_models' (or a 'template_id' to take them from).",
      'default_models',
      'missing_required_parameter',
    );
  }
  const settings = mergeRouting(
    currentRouting(row),
    { default_models: body.default_models, template_id: body.template_id ?? null },
    context,
  );
  return { ...routingColumns(settings), updated_at: context.now };
}
