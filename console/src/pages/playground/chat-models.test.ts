import { describe, expect, it } from 'vitest';
import { chatModels } from './chat-models';

describe('chatModels (issue 28)', () => {
  it('offers chat models only, not embedding-only ones', () => {
    const models = [
      { id: 'mock/chat', output_modalities: ['text'] },
      { id: 'mock/embed', output_modalities: ['embeddings'] },
      { id: 'mock/vision', output_modalities: ['text', 'image'] },
    ];
    expect(chatModels(models).map((model) => model.id)).toEqual(['mock/chat', 'mock/vision']);
  });
});
