import { Type } from '@sinclair/typebox';
import { parseConfigSection } from '../config/config-section.js';

const CatalogSection = Type.Object(
  { stats_cache_ms: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: true },
);

/**
 * `catalog.stats_cache_ms` (default 5000): how long a statistics answer is reused. 0 computes every
 * answer afresh (the statistics benchmark measures both).
 */
export function statsCacheMs(section: Record<string, unknown> | undefined): number {
  return parseConfigSection('catalog', section, CatalogSection).stats_cache_ms ?? 5000;
}
