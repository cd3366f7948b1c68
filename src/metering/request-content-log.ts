import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { settleConfigSection } from '../config/config-section.js';
import { ActivitySectionSchema } from '../config/section-schemas.js';
import type { CapturedContent, ContentSink } from '../gateway/engine/content-capture.js';
import {
  deleteRequestContentBefore,
  findRequestContent,
  insertRequestContent,
  type RequestContentsTable,
} from './request-content-repository.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

const DAY_MS = 86_400_000;
/** How often content past its retention is erased. */
const SWEEP_EVERY_MS = 3_600_000;
/**
 * Writes waiting at once: past this (a store that stalls), content is dropped rather than held, so
 * memory stays bounded by this many times two caps.
 */
const MAX_PENDING = 256;

export interface RequestContentSettings {
  /** `activity.content_max_bytes`: the cap per body, before compression. */
  maxBytes: number;
  /** `activity.content_retention_days`. */
  retentionDays: number;
}

/** `activity:` → the cap and the retention (defaults in the schema: 64 KiB, 30 days). */
export function readRequestContentSettings(section: Record<string, unknown> | undefined): RequestContentSettings {
  const settled = settleConfigSection('activity', section, ActivitySectionSchema);
  return { maxBytes: settled.content_max_bytes, retentionDays: settled.content_retention_days };
}

/** One kept body as the activity page shows it: text (UTF-8), its original size, whether it was cut. */
interface KeptBody {
  text: string;
  bytes: number;
  truncated: boolean;
}

export interface KeptContent {
  request: KeptBody;
  response: KeptBody;
  responseType: string | null;
}

/**
 * Content logging, opt-in per key: keeps each exchange the engine captured (compressed, off the
 * answer's path, best-effort: a failed write is logged without the bodies and never touches the
 * request or its charge), reads it back for the owner's activity page, and erases what is older
 * than the retention every hour. Bodies never go to logs, metrics or traces.
 */
export class RequestContentLog implements ContentSink {
  private readonly writes = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private dropped = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
    private readonly settings: RequestContentSettings,
  ) {}

  get maxBytes(): number {
    return this.settings.maxBytes;
  }

  keep(content: CapturedContent): void {
    if (this.writes.size >= MAX_PENDING) {
      if (this.dropped++ % 100 === 0)
        this.logger.warn({ dropped: this.dropped }, 'request content not kept: too many writes pending');
      return;
    }
    const write = this.write(content)
      .catch((error: unknown) => {
        // The error's name and code only: a driver's message could quote what it was given.
        const code = (error as { code?: unknown }).code;
        this.logger.warn(
          { error: error instanceof Error ? error.name : 'unknown', code, requestId: content.requestId },
          'request content not kept',
        );
      })
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** Reads one request's kept content, decoded; null when none was kept (or it was erased). */
  async read(userId: string, requestId: string, createdAt: number): Promise<KeptContent | null> {
    const row = await findRequestContent(this.store.db, userId, requestId, createdAt);
    return row ? decodeContent(row) : null;
  }

  start(): void {
    this.timer = setInterval(() => void this.sweepQuietly(), SWEEP_EVERY_MS);
    this.timer.unref();
    void this.sweepQuietly();
  }

  /** Erases content past the retention; returns how many requests' content went. */
  async sweep(): Promise<number> {
    return deleteRequestContentBefore(this.store.db, this.clock.now() - this.settings.retentionDays * DAY_MS);
  }

  /** Waits for the writes in flight (before an account is erased). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  /** Stops the sweep and waits for the writes in flight (before the store closes). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.writes]);
  }

  private async sweepQuietly(): Promise<void> {
    try {
      const erased = await this.sweep();
      if (erased > 0) this.logger.info({ erased }, 'request content past its retention erased');
    } catch (error) {
      this.logger.warn({ error: error instanceof Error ? error.message : 'unknown' }, 'request content sweep failed');
    }
  }

  private async write(content: CapturedContent): Promise<void> {
    const [request, response] = await Promise.all([
      gzipAsync(content.request.bytes),
      gzipAsync(content.response.bytes),
    ]);
    await insertRequestContent(this.store.db, {
      id: this.ids.next('rc_'),
      user_id: content.userId,
      key_id: content.keyId,
      request_id: content.requestId,
      created_at: content.createdAt,
      encoding: 'gzip',
      request_body: request,
      request_bytes: content.request.totalBytes,
      request_truncated: content.request.truncated ? 1 : 0,
      response_body: response,
      response_bytes: content.response.totalBytes,
      response_truncated: content.response.truncated ? 1 : 0,
      response_type: content.responseType,
    });
  }
}

async function decodeContent(row: RequestContentsTable): Promise<KeptContent> {
  const text = async (body: Uint8Array | null) =>
    body === null ? '' : (await gunzipAsync(Buffer.from(body))).toString('utf8');
  return {
    request: {
      text: await text(row.request_body),
      bytes: Number(row.request_bytes),
      truncated: row.request_truncated === 1,
    },
    response: {
      text: await text(row.response_body),
      bytes: Number(row.response_bytes),
      truncated: row.response_truncated === 1,
    },
    responseType: row.response_type,
  };
}
