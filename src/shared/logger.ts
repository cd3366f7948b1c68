import { pino, type Logger } from 'pino';

/** JSON logs (pino). Credentials never reach a log line: these paths are redacted wherever they appear. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
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
    },
    destination as never,
  );
}
