/**
 * A [0, 1) sequence fixed by a key: the weighted choice among a model's endpoints then falls the
 * same way for every request of one conversation (its `prompt_cache_key`), so it stays on the
 * endpoint whose prompt cache is warm while different conversations still spread by weight.
 * FNV-1a of the key seeds mulberry32; pure.
 */
export function affinityRandom(key: string): () => number {
  let seed = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) {
    seed ^= key.charCodeAt(index);
    seed = Math.imul(seed, 0x01000193);
  }
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let value = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
