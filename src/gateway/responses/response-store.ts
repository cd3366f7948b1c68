import type { Store } from '../../store/database.js';
import type { ChatMessage } from '../../shared/openai-types.js';
import type { ResponseObject } from './responses-types.js';

interface StoredResponsesTable {
  id: string;
  user_id: string;
  key_id: string | null;
  model: string;
  /** The Response JSON as answered. */
  response: string;
  /** The chat messages the Response ends (without instructions), JSON. */
  conversation: string;
  created_at: number;
}

declare module '../../store/schema.js' {
  interface Database {
    stored_responses: StoredResponsesTable;
  }
}

export interface StoredResponse {
  response: ResponseObject;
  conversation: ChatMessage[];
}

/** Responses kept for GET /v1/responses/{id} and previous_response_id, always looked up per user. */
export class ResponseStore {
  constructor(private readonly store: Store) {}

  async save(input: {
    userId: string;
    keyId: string | null;
    response: ResponseObject;
    conversation: ChatMessage[];
    now: number;
  }): Promise<void> {
    await this.store.db
      .insertInto('stored_responses')
      .values({
        id: input.response.id,
        user_id: input.userId,
        key_id: input.keyId,
        model: input.response.model,
        response: JSON.stringify(input.response),
        conversation: JSON.stringify(input.conversation),
        created_at: input.now,
      })
      .execute();
  }

  /** Another user's response is indistinguishable from a missing one. */
  async find(userId: string, id: string): Promise<StoredResponse | null> {
    const row = await this.store.db
      .selectFrom('stored_responses')
      .select(['response', 'conversation'])
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      response: JSON.parse(row.response) as ResponseObject,
      conversation: JSON.parse(row.conversation) as ChatMessage[],
    };
  }
}
