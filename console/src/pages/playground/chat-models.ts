/** The models the playground offers: those that answer in text (an embedding-only model cannot chat). */
export function chatModels<T extends { id: string; output_modalities: string[] }>(models: readonly T[]): T[] {
  return models.filter((model) => model.output_modalities.includes('text'));
}
