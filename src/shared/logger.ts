import { pino, type Logger } from 'pino';
import { SecretScrubber } from './secret-scrubber.js';

const scrubbers = new WeakMap<Logger, SecretScrubber>();

/**
 * JSON logs (pino). Credentials never reach a log line: these paths are redacted wherever they
 * appear, and every finished line passes through a SecretScrubber holding the configured secrets
 * (filled by the app from its config, see `logScrubber`), so a provider's error text that echoes
 * a key is scrubbed whatever field it sits in.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const scrubber = new SecretScrubber();
  const logger = pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          'headers.authorization',
          'apiKey',
          'api_key',
          'key',
          'password',
          'token',
        ],
        censor: '[redacted]',
      },
      hooks: { streamWrite: (line) => scrubber.scrub(line) },
    },
    destination as never,
  );
  scrubbers.set(logger, scrubber);
  return logger;
}

/** The scrubber of a logger made by createLogger (undefined for any other logger). */
export function logScrubber(logger: Logger): SecretScrubber | undefined {
  return scrubbers.get(logger);
}
