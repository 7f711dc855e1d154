import { pino } from 'pino';

/**
 * One-line JSON logs on stderr through pino: {level, time, msg, ...fields}, level as its name and
 * time as ISO 8601, as before. Callers pass structured fields, never secret values: pino's
 * redaction below is a second line of defence for fields named as secrets, at the top level and
 * one object down (`{ smtp: { password } }`).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const SECRET_FIELDS = [
  'password', 'secret', 'token', 'privateKey', 'authorization', 'value',
  'apiToken', 'accessToken', 'refreshToken', 'webhookSecret', 'jwtSecret', 'secretKey', 'newPassword', 'currentPassword',
];
const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]);

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const log = pino({
    level,
    base: undefined, // no pid or hostname: the lines keep their fields
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
  }, { write });
  return {
    debug: (msg, fields = {}) => log.debug(fields, msg),
    info: (msg, fields = {}) => log.info(fields, msg),
    warn: (msg, fields = {}) => log.warn(fields, msg),
    error: (msg, fields = {}) => log.error(fields, msg),
  };
}
