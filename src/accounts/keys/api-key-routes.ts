import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import type { ApiKeysTable } from '../../store/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { IdGenerator } from '../../shared/ids.js';
import { NotFoundError } from '../../shared/errors.js';
import type { KeyChangeAnnouncer } from '../../keys/key-change-broadcast.js';
import { createApiKey } from '../../keys/create-api-key.js';
import {
  findApiKeyForUser,
  keyHashesOf,
  listApiKeysForUser,
  recordKeyChange,
  revokeApiKey,
  rotateApiKeySecret,
  updateApiKey,
  type ApiKeyChanges,
} from '../../keys/api-key-repository.js';
import { generateApiKey, hashApiKey, maskParts } from '../../keys/api-key-format.js';
import {
  toApiKeyChanges,
  toDefaultModelsChanges,
  toNewApiKey,
  type KeyInputContext,
  type TemplateLookup,
} from './api-key-input.js';
import { toApiKeyView } from './api-key-view.js';
import { keySpendViews } from '../../keys/key-spend-view.js';
import { deleteKeySpendAlertsOfKey } from '../../credits/key-spend-alerts.js';
import {
  ApiKeyListSchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  DefaultModelsConfigurationSchema,
  DEFAULT_ROTATION_GRACE_SECONDS,
  KeyIdParamsSchema,
  PutDefaultModelsBodySchema,
  RotateApiKeyBodySchema,
  UpdateApiKeyBodySchema,
} from './api-key-schemas.js';
import { typed } from '../../shared/typebox-type-provider.js';

export interface ApiKeyRouteDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  isKnownModel(modelId: string): boolean;
  templates: TemplateLookup;
  announcer: KeyChangeAnnouncer;
}

const BASE = '/user/api-keys';
const errors = { 400: { $ref: 'ErrorEnvelope#' }, 401: { $ref: 'ErrorEnvelope#' }, 404: { $ref: 'ErrorEnvelope#' } };
const common = {
  tags: ['api-keys'],
  description:
    'Needs a signed-in user: Authorization: Bearer <session token> from /api-account/auth/sign-in/email, or the session cookie.',
};

function notFound(keyId: string): NotFoundError {
  return new NotFoundError(`No API key '${keyId}'.`, 'api_key_not_found', 'key_id');
}

function signedInUserId(request: FastifyRequest): string {
  // requireUser ran as the preHandler; a missing user here is a wiring bug, not a client error.
  if (!request.user) throw new Error('account route reached without a signed-in user');
  return request.user.id;
}

/** The key API of spec §4.1, for the signed-in user's own keys only: another user's key is a 404. */
export function registerApiKeyRoutes(app: FastifyInstance, deps: ApiKeyRouteDeps): void {
  const { store, clock } = deps;
  const context = (): KeyInputContext => ({
    now: clock.now(),
    isKnownModel: deps.isKnownModel,
    templates: deps.templates,
  });

  const view = async (row: ApiKeysTable) => {
    const now = clock.now();
    const spend = await keySpendViews(store, [row.id], now);
    return toApiKeyView(row, spend.get(row.id)!, now);
  };

  /** Loads the user's key, applies computed changes and tells every instance, in one transaction. */
  const change = async (
    userId: string,
    keyId: string,
    compute: (row: ApiKeysTable) => ApiKeyChanges,
  ): Promise<ApiKeysTable> => {
    const updated = await store.db.transaction().execute(async (transaction) => {
      const row = await findApiKeyForUser(transaction, userId, keyId);
      if (!row) throw notFound(keyId);
      const changes = compute(row);
      await updateApiKey(transaction, userId, keyId, changes);
      for (const hash of keyHashesOf(row)) await recordKeyChange(transaction, hash, clock.now());
      return { ...row, ...changes } as ApiKeysTable;
    });
    await announce(keyHashesOf(updated));
    return updated;
  };
  const announce = async (hashes: string[]) => {
    for (const hash of hashes) await deps.announcer.announce(hash);
  };

  typed(app).get(BASE, {
    schema: { ...common, summary: 'List your API keys (masked)', response: { 200: ApiKeyListSchema, ...errors } },
    async handler(request) {
      const rows = await listApiKeysForUser(store.db, signedInUserId(request));
      const now = clock.now();
      const spend = await keySpendViews(
        store,
        rows.map((row) => row.id),
        now,
      );
      return { data: rows.map((row) => toApiKeyView(row, spend.get(row.id)!, now)) };
    },
  });

  typed(app).post(BASE, {
    schema: {
      ...common,
      summary: 'Create an API key; the response shows the full key once',
      body: CreateApiKeyBodySchema,
      response: { 201: CreatedApiKeySchema, ...errors },
    },
    async handler(request, reply) {
      const input = toNewApiKey(signedInUserId(request), request.body, context());
      const { row, fullKey } = await createApiKey(store, deps.ids, clock.now(), input);
      reply.status(201);
      return { ...(await view(row)), key: fullKey };
    },
  });

  typed(app).get(`${BASE}/:key_id`, {
    schema: {
      ...common,
      summary: 'One API key: metadata and routing configuration',
      params: KeyIdParamsSchema,
      response: { 200: { $ref: 'ApiKey#' }, ...errors },
    },
    async handler(request) {
      const { key_id: keyId } = request.params;
      const row = await findApiKeyForUser(store.db, signedInUserId(request), keyId);
      if (!row) throw notFound(keyId);
      return view(row);
    },
  });

  typed(app).patch(`${BASE}/:key_id`, {
    schema: {
      ...common,
      summary: 'Change an API key: name, description, routing, limits, expiration, disabled',
      params: KeyIdParamsSchema,
      body: UpdateApiKeyBodySchema,
      response: { 200: { $ref: 'ApiKey#' }, ...errors },
    },
    async handler(request) {
      const { key_id: keyId } = request.params;
      const body = request.body;
      return view(await change(signedInUserId(request), keyId, (row) => toApiKeyChanges(row, body, context())));
    },
  });

  typed(app).put(`${BASE}/:key_id/default-models`, {
    schema: {
      ...common,
      summary: 'Set the default models of an API key (from a template or a list)',
      params: KeyIdParamsSchema,
      body: PutDefaultModelsBodySchema,
      response: { 200: DefaultModelsConfigurationSchema, ...errors },
    },
    async handler(request) {
      const { key_id: keyId } = request.params;
      const body = request.body;
      const row = await change(signedInUserId(request), keyId, (current) =>
        toDefaultModelsChanges(current, body, context()),
      );
      const shown = await view(row);
      return {
        key_id: shown.key_id,
        routing_mode: shown.routing_mode,
        template_id: shown.template_id,
        default_models: shown.default_models,
      };
    },
  });

  typed(app).delete(`${BASE}/:key_id`, {
    schema: {
      ...common,
      summary: 'Revoke an API key permanently (it stops working on every instance within a second)',
      params: KeyIdParamsSchema,
      response: { 200: Type.Object({ key_id: Type.String(), deleted: Type.Literal(true) }), ...errors },
    },
    async handler(request) {
      const { key_id: keyId } = request.params;
      const userId = signedInUserId(request);
      const hashes = await store.db.transaction().execute(async (transaction) => {
        const row = await findApiKeyForUser(transaction, userId, keyId);
        if (!row || !(await revokeApiKey(transaction, userId, keyId, clock.now()))) throw notFound(keyId);
        await deleteKeySpendAlertsOfKey(transaction, keyId);
        // The previous secret of a rotation dies with the key.
        for (const hash of keyHashesOf(row)) await recordKeyChange(transaction, hash, clock.now());
        return keyHashesOf(row);
      });
      await announce(hashes);
      return { key_id: keyId, deleted: true as const };
    },
  });

  typed(app).post(`${BASE}/:key_id/rotate`, {
    schema: {
      ...common,
      summary: 'Rotate an API key: a new secret, same key id and settings; the old secret works for a grace period',
      params: KeyIdParamsSchema,
      body: RotateApiKeyBodySchema,
      response: { 200: CreatedApiKeySchema, ...errors },
    },
    // The body is optional (every field has a default): no body reads as {}.
    preValidation: async (request) => {
      request.body ??= {};
    },
    async handler(request) {
      const { key_id: keyId } = request.params;
      const userId = signedInUserId(request);
      const graceSeconds = request.body?.grace_period_seconds;
      const fullKey = generateApiKey();
      const { start, end } = maskParts(fullKey);
      const now = clock.now();
      const { row, announced } = await store.db.transaction().execute(async (transaction) => {
        // Locked: two rotations at once run one after the other, each replacing the secret it read.
        const current = await findApiKeyForUser(transaction, userId, keyId, { lock: store.dialect });
        if (!current) throw notFound(keyId);
        const secret = {
          keyHash: hashApiKey(fullKey),
          keyStart: start,
          keyEnd: end,
          previousKeyHash: current.key_hash,
          previousExpiresAt: now + (graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS) * 1000,
        };
        if (!(await rotateApiKeySecret(transaction, userId, keyId, secret, now))) throw notFound(keyId);
        // Old hashes (the secret now previous, and one a second rotation drops) and the new one (a
        // negative cache entry for it must not outlive the rotation).
        const hashes = [...keyHashesOf(current), secret.keyHash];
        for (const hash of hashes) await recordKeyChange(transaction, hash, now);
        const rotated: ApiKeysTable = {
          ...current,
          key_hash: secret.keyHash,
          key_start: start,
          key_end: end,
          previous_key_hash: secret.previousKeyHash,
          previous_key_expires_at: secret.previousExpiresAt,
          updated_at: now,
        };
        return { row: rotated, announced: hashes };
      });
      await announce(announced);
      return { ...(await view(row)), key: fullKey };
    },
  });
}
