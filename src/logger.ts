import pino, { type DestinationStream, type Logger } from 'pino';
import { asciiDigits, containsCardNumber, luhnValid } from './shared/card-numbers.js';

/** Paths pino replaces with [REDACTED] wherever they appear in a log line. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.secret',
  '*.apiKey',
  '*.token',
  '*.cardNumber',
  '*.number',
  '*.cvc',
  '*.idNumber',
  '*.totpCode',
  '*.totpSecret',
];

const REDACTED = '[REDACTED]';

/**
 * Query parameters whose name says they carry a credential, or a person's contact details (the customer
 * search by e-mail): their values never reach a log line.
 */
const SECRET_QUERY_NAME =
  /key|token|secret|passw|pwd|session|signature|sig|otp|auth|code|cookie|e-?mail|phone/i;

/**
 * Secrets that can sit anywhere in a serialised line (a URL with `?api_key=`, a message that quotes a
 * header, an error that echoes its input). The structured redaction above catches known members; this
 * catches the shapes, whatever member or message carries them.
 */
const LINE_PATTERNS: Array<[RegExp, string]> = [
  // API keys and webhook secrets: the prefix stays, so a reader still sees what kind of secret it was.
  [/\b(sk_(?:test|live)_)[A-Za-z0-9]+/g, `$1${REDACTED}`],
  [/\b(whsec_)[A-Za-z0-9_-]+/g, `$1${REDACTED}`],
  // Bearer tokens (the operator CLI token, anything else sent as Authorization: Bearer).
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, `$1${REDACTED}`],
  // Session and form cookies of the dashboard and the console.
  [/\b((?:gw_session|gw_operator|gw_form)=)[^;,"\s\\]+/g, `$1${REDACTED}`],
  // Single-use links: the token is the last path segment.
  [/(\/(?:reset-password|activate|invitation)\/)[^/?#"\s\\]+/g, `$1${REDACTED}`],
];

/** One query parameter (`?name=value` or `&name=value`); otpauth:// URIs carry the TOTP secret this way. */
const QUERY_PARAMETER = /([?&])([^=&#"\s\\]+)=([^&#"\s\\]*)/g;

/**
 * What may stand between the digit groups of a card number in a log line: a space, a dash or a plus, a
 * Unicode space or dash written as itself (full-width too), their percent-encodings in a URL (`%20`,
 * `%2D`, `%09`, `%C2%A0`), or a tab as JSON escapes it.
 */
const CARD_SEPARATOR =
  '(?:[ +\\u00a0\\u00ad\\u2000-\\u200d\\u2010-\\u2015\\u2060\\u202f\\u205f\\u2212\\u3000\\uff0d-]|%20|%2[dD]|%09|%[cC]2%[aA]0|\\\\t)';
// A run of digits of any script (full-width, Arabic-Indic: a reader downstream may take them as digits),
// not a decimal's fraction nor its integer part (a dot that ends a sentence is no decimal point): a
// letter or an underscore before it is no boundary of a card number (`cus_4242…` in a logged URL is one).
const DIGIT_RUN = new RegExp(
  `(?<![\\p{Nd}.])\\p{Nd}(?:${CARD_SEPARATOR}{0,3}\\p{Nd}){12,18}(?!\\p{Nd}|\\.\\p{Nd})`,
  'gu',
);
/** A card number grouped by dots (`4242.4242.4242.4242`): groups of 4 to 6 digits, the last of 1 to 6. */
const DOT = '(?:[.\\uff0e]|%2[eE])';
const DOTTED_RUN = new RegExp(
  `(?<![\\p{Nd}.])\\p{Nd}{4,6}(?:${DOT}\\p{Nd}{4,6})*${DOT}\\p{Nd}{1,6}(?!\\p{Nd}|${DOT}\\p{Nd})`,
  'gu',
);
const SEPARATORS = new RegExp(`${CARD_SEPARATOR}|${DOT}`, 'gu');
/** A stretch of a URL of percent-encoded bytes, digits and separators. */
const ENCODED_RUN = /(?:%[0-9A-Fa-f]{2}|[0-9.+-])*(?:%[0-9A-Fa-f]{2}|[0-9])/g;

/** Whether the digits of a match, whatever separates them and in whatever script, are a card number. */
function cardDigits(match: string): boolean {
  const digits = asciiDigits(match.replace(SEPARATORS, ''));
  return digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
}

/** Removes every secret shape from one serialised log line (JSON stays valid: only string content changes). */
export function scrubSecrets(line: string): string {
  let out = line;
  for (const [pattern, replacement] of LINE_PATTERNS) out = out.replace(pattern, replacement);
  out = out.replace(QUERY_PARAMETER, (match, separator: string, name: string) =>
    SECRET_QUERY_NAME.test(name) ? `${separator}${name}=${REDACTED}` : match,
  );
  // Card numbers: Luhn-valid runs of 13 to 19 digits, spaced or not, inside strings (a bare JSON
  // number is left alone, so the line stays valid JSON).
  out = out.replace(DIGIT_RUN, (match: string, offset: number) => {
    if (!cardDigits(match)) return match;
    const before = out[offset - 1];
    const after = out[offset + match.length];
    const bareNumber =
      (before === ':' || before === ',' || before === '[') &&
      (after === ',' || after === '}' || after === ']' || after === undefined);
    return bareNumber ? match : REDACTED;
  });
  out = out.replace(DOTTED_RUN, (match: string) => (cardDigits(match) ? REDACTED : match));
  // Digits of another script in a logged URL are percent-encoded UTF-8 (`%EF%BC%94` is a full-width 4).
  out = out.replace(ENCODED_RUN, (match: string) => {
    if (!/%[89a-f]/i.test(match)) return match;
    try {
      return containsCardNumber(decodeURIComponent(match)) ? REDACTED : match;
    } catch {
      return match;
    }
  });
  return out;
}

let droppedTotal = 0;

/**
 * Log lines this process dropped because its log stream was stalled or gone (every destination made by
 * createLogDestination). Read by the metrics endpoint; a process-wide counter like any process metric.
 */
export function droppedLogLines(): number {
  return droppedTotal;
}

/** The writable side of stdout or stderr: a Node stream whose buffered bytes we can see. */
export interface OutputStream {
  write(chunk: string, callback: (error?: Error | null) => void): boolean;
  readonly writableLength: number;
  readonly destroyed: boolean;
  readonly writableEnded?: boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * A log destination that never blocks the event loop or the exit. Lines go to a Node stream
 * (process.stdout: asynchronous for pipes and sockets), whose buffer is bounded: when the reader stalls
 * and `maxBufferBytes` are waiting, further lines are dropped and counted, never waited for; when the
 * stream drains again, one warning says how many were lost. A stream that failed (EPIPE: the reader is
 * gone) drops everything. `drain` is the final flush at exit, with a deadline.
 */
export class LogDestination implements DestinationStream {
  private droppedLines = 0;
  private droppedSinceRecovery = 0;
  private failed = false;
  /** Lines handed to the stream whose write has not completed yet. */
  private pending = 0;
  /** Called once nothing is pending any more. */
  private idle: Array<() => void> = [];
  /** Called once per stall, when the stream has drained again after dropping lines. */
  onRecovered: ((dropped: number) => void) | undefined;

  constructor(
    private readonly stream: OutputStream,
    private readonly maxBufferBytes: number,
  ) {
    stream.on('error', () => {
      this.failed = true;
    });
  }

  /** Lines this destination dropped so far. */
  get dropped(): number {
    return this.droppedLines;
  }

  write(line: string): void {
    if (this.isDead() || this.stream.writableLength + line.length > this.maxBufferBytes) {
      this.drop();
      return;
    }
    this.pending += 1;
    try {
      this.stream.write(line, this.written);
    } catch {
      this.pending -= 1;
      // A stream destroyed between our check and the write: the line is lost, like any other.
      this.failed = true;
      this.drop();
    }
  }

  /**
   * Resolves once everything buffered is handed to the operating system (true), or at the deadline or
   * when the stream is gone (false). Never blocks: an exit waits for it at most `timeoutMs`.
   */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.pending === 0) return Promise.resolve(!this.isDead());
    return new Promise((resolve) => {
      const onIdle = () => {
        clearTimeout(timer);
        resolve(!this.isDead());
      };
      const timer = setTimeout(() => {
        this.idle = this.idle.filter((listener) => listener !== onIdle);
        resolve(false);
      }, timeoutMs);
      this.idle.push(onIdle);
    });
  }

  /** Completion of one write (an error too: a failed stream completes its queued writes with it). */
  private readonly written = (error?: Error | null) => {
    if (error) this.failed = true;
    this.pending -= 1;
    if (this.pending > 0) return;
    const recovered = this.droppedSinceRecovery;
    this.droppedSinceRecovery = 0;
    for (const listener of this.idle.splice(0)) listener();
    // Everything buffered is out: the reader is back. One warning per stall says what was lost.
    if (recovered > 0 && !this.isDead()) this.onRecovered?.(recovered);
  };

  private isDead(): boolean {
    return this.failed || this.stream.destroyed || this.stream.writableEnded === true;
  }

  private drop(): void {
    this.droppedLines += 1;
    this.droppedSinceRecovery += 1;
    droppedTotal += 1;
    // A single line larger than the whole buffer is dropped with nothing pending: report it at once.
    if (this.pending === 0 && !this.isDead()) {
      setImmediate(() => {
        if (this.pending > 0 || this.droppedSinceRecovery === 0) return;
        const recovered = this.droppedSinceRecovery;
        this.droppedSinceRecovery = 0;
        this.onRecovered?.(recovered);
      });
    }
  }
}

export const DEFAULT_LOG_BUFFER_BYTES = 1024 * 1024;

export function createLogDestination(
  stream: OutputStream = process.stdout,
  options: { maxBufferBytes?: number } = {},
): LogDestination {
  return new LogDestination(stream, options.maxBufferBytes ?? DEFAULT_LOG_BUFFER_BYTES);
}

/**
 * The gateway's logger. Without a destination it writes to a bounded, non-blocking stdout destination
 * (never pino's default, whose synchronous flush at exit spins for ever on a stalled pipe).
 */
export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  const destination = options.destination ?? createLogDestination();
  const logger = pino(
    {
      level: options.level,
      base: { service: 'payment-gateway' },
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: { streamWrite: scrubSecrets },
    },
    destination,
  );
  if (destination instanceof LogDestination && destination.onRecovered === undefined) {
    destination.onRecovered = (dropped) =>
      logger.warn(
        { droppedLines: dropped, droppedTotal: droppedTotal },
        'log stream recovered: lines were dropped while it was stalled',
      );
  }
  return logger;
}
