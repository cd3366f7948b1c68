import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import * as apiKeys from './0001-api-keys.js';
import * as settings from './0002-settings.js';
import * as metering from './0200-metering.js';
import * as billing from './0300-billing.js';
import * as usageRollups from './0400-usage-rollups.js';
import * as usageUsersCount from './0401-usage-users-count.js';
import * as responses from './0500-responses.js';
import * as invitations from './0600-invitations.js';
import * as hashSessionTokens from './0605-hash-session-tokens.js';
import * as apiKeyRotation from './0620-api-key-rotation.js';
import * as admin from './0630-admin.js';
import * as creditHolds from './0640-credit-holds.js';
import * as activity from './0700-activity.js';
import * as activityFailedIndex from './0701-activity-failed-index.js';
import * as activityPartialNullIndexes from './0702-activity-partial-null-indexes.js';
import * as balanceAlerts from './0710-balance-alerts.js';
import * as requestContent from './0720-request-content.js';
import * as keySpendAlerts from './0730-key-spend-alerts.js';
import * as usagePartitions from './0740-usage-partitions.js';
import * as usageUserCreatedIndex from './0750-usage-user-created-index.js';

export interface FeatureMigration {
  /** Sorted by name; features use their own number range (0001–0099 core, 0100 keys, 0200 metering, …). */
  name: string;
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

export const MIGRATIONS: FeatureMigration[] = [
  { name: '0001-api-keys', up: apiKeys.up },
  { name: '0002-settings', up: settings.up },
  { name: '0200-metering', up: metering.up },
  { name: '0300-billing', up: billing.up },
  { name: '0400-usage-rollups', up: usageRollups.up },
  { name: '0401-usage-users-count', up: usageUsersCount.up },
  { name: '0500-responses', up: responses.up },
  { name: '0600-invitations', up: invitations.up },
  { name: '0605-hash-session-tokens', up: hashSessionTokens.up },
  { name: '0620-api-key-rotation', up: apiKeyRotation.up },
  { name: '0630-admin', up: admin.up },
  { name: '0640-credit-holds', up: creditHolds.up },
  { name: '0700-activity', up: activity.up },
  { name: '0701-activity-failed-index', up: activityFailedIndex.up },
  { name: '0702-activity-partial-null-indexes', up: activityPartialNullIndexes.up },
  { name: '0710-balance-alerts', up: balanceAlerts.up },
  { name: '0720-request-content', up: requestContent.up },
  { name: '0730-key-spend-alerts', up: keySpendAlerts.up },
  { name: '0740-usage-partitions', up: usagePartitions.up },
  { name: '0750-usage-user-created-index', up: usageUserCreatedIndex.up },
];
