import pino, { type DestinationStream, type Logger } from 'pino';

/** Paths pino replaces with [REDACTED] wherever they appear in a log line. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.secret',
  '*.apiKey',
  '*.token',
  '*.cardNumber',
  '*.number',
  '*.cvc',
  '*.idNumber',
  '*.totpCode',
];

export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'payment-gateway' },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
