import { unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Logger } from 'pino';
import type { GatewayConfig } from './gateway-config.js';

/** What a reload may change without a restart; everything else is reported as needing one. */
const RESTART_FIELDS = ['server', 'databaseUrl', 'redisUrl'] as const;
const RESTART_SECTIONS = ['billing', 'limits', 'catalog', 'metrics', 'tracing', 'auth', 'mail', 'activity'] as const;

export type ReloadResult = { ok: true; summary: string; needsRestart: string[] } | { ok: false; error: string };

export interface ConfigReloaderOptions {
  /** The config file to watch; null when the config came from defaults and environment only. */
  path: string | null;
  /** Reads and validates the config again; throws (ConfigError) when it is not usable. */
  load: () => GatewayConfig;
  /** Puts the new providers, models and routing into service; throws, changing nothing, to refuse. */
  apply: (config: GatewayConfig) => string;
  /** The config in service now (to tell which changes need a restart). */
  current: GatewayConfig;
  logger: Logger;
  /** How often the file's modification time is checked (default 2000 ms). Polling also sees a ConfigMap's symlink swap. */
  pollIntervalMs?: number;
  /** Reload on SIGHUP (default true). */
  onSignal?: boolean;
}

/**
 * Reloads the config on SIGHUP and when the file changes. A config that fails to load or to apply
 * is refused with its error, and the one in service stays; requests never see a half-applied one.
 */
export class ConfigReloader {
  private current: GatewayConfig;
  private readonly onSignal = () => void this.reload('SIGHUP');
  private readonly onFileChange = (now: Stats, before: Stats) => {
    if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) void this.reload('file changed');
  };

  constructor(private readonly options: ConfigReloaderOptions) {
    this.current = options.current;
  }

  start(): void {
    if (this.options.onSignal !== false) process.on('SIGHUP', this.onSignal);
    if (this.options.path)
      watchFile(
        this.options.path,
        { interval: this.options.pollIntervalMs ?? 2000, persistent: false },
        this.onFileChange,
      );
  }

  stop(): void {
    process.off('SIGHUP', this.onSignal);
    if (this.options.path) unwatchFile(this.options.path, this.onFileChange);
  }

  /** Loads and applies the config now; the result is also logged. */
  async reload(reason: string): Promise<ReloadResult> {
    const { logger } = this.options;
    let next: GatewayConfig;
    let summary: string;
    try {
      next = this.options.load();
      summary = this.options.apply(next);
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      logger.error(`config reload (${reason}) refused, still serving the previous config: ${message}`);
      return { ok: false, error: message };
    }
    const needsRestart = changedRestartFields(this.current, next);
    this.current = next;
    logger.info(`config reloaded (${reason}): ${summary}`);
    if (needsRestart.length > 0)
      logger.warn(`config reload: changes to ${needsRestart.join(', ')} take effect only after a restart`);
    return { ok: true, summary, needsRestart };
  }
}

function changedRestartFields(before: GatewayConfig, after: GatewayConfig): string[] {
  const changed: string[] = [];
  for (const field of RESTART_FIELDS)
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changed.push(field);
  for (const section of RESTART_SECTIONS)
    if (JSON.stringify(before.sections[section] ?? {}) !== JSON.stringify(after.sections[section] ?? {}))
      changed.push(section);
  // The breakers are built once with their thresholds; the rest of `routing:` reloads.
  const breakerOf = (config: GatewayConfig) =>
    JSON.stringify((config.sections.routing as { circuit_breaker?: unknown } | undefined)?.circuit_breaker ?? {});
  if (breakerOf(before) !== breakerOf(after)) changed.push('routing.circuit_breaker');
  return changed;
}
