import { settleConfigSection } from '../config/config-section.js';
import { ActivitySectionSchema } from '../config/section-schemas.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { UsageRetentionSettings } from './usage-retention.js';

/** `activity.retention_days` (default 0: keep every usage row), read through its schema (a negative value is a ConfigError). */
export function readUsageRetention(config: Pick<GatewayConfig, 'sections'>): UsageRetentionSettings {
  return {
    retentionDays: settleConfigSection('activity', config.sections.activity, ActivitySectionSchema).retention_days,
  };
}
