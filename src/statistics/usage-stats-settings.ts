import { settleConfigSection } from '../config/config-section.js';
import { CatalogSectionSchema } from '../config/section-schemas.js';

/**
 * `catalog.stats_cache_ms` (default 5000, in the schema): how long a statistics answer is reused.
 * 0 computes every answer afresh (the statistics benchmark measures both).
 */
export function statsCacheMs(section: Record<string, unknown> | undefined): number {
  return settleConfigSection('catalog', section, CatalogSectionSchema).stats_cache_ms;
}
