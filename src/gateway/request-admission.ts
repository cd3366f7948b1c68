import type { FastifyReply } from 'fastify';
import type { ApiKeyRecord } from '../routing/api-key-record.js';
import type { ChatCompletionRequest } from '../shared/openai-types.js';
import type { CompletionOutcome } from '../routing/completion-outcome.js';
import type { RouteCandidate } from '../routing/model-directory.js';

export interface AdmissionInput {
  request: ChatCompletionRequest;
  key: ApiKeyRecord | null;
  /** The endpoints the request may be served by, in order (the hold covers the dearest). */
  candidates: RouteCandidate[];
  /** The request's outcome object; the same object later reaches the CompletionObservers. */
  outcome: CompletionOutcome;
  reply: FastifyReply;
}

/**
 * A check run after routing is planned and before anything is sent upstream (metering: rate
 * limits, key quotas, credit holds). It throws a GatewayError to refuse the request.
 */
export interface RequestAdmission {
  admit(input: AdmissionInput): Promise<void>;
}
