import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError, type IssueCode, type ValidationIssue } from './errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Location = ValidationIssue['in'];

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv, ['email', 'uri', 'date', 'date-time', 'uuid', 'ipv4', 'ipv6']);
  const rfc3339 = ajv.formats['date-time'];
  if (typeof rfc3339 !== 'object' || !('validate' in rfc3339) || typeof rfc3339.validate !== 'function')
    throw new Error('ajv-formats gave no date-time validator');
  const isRfc3339 = rfc3339.validate as (text: string) => boolean;
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => isRfc3339(text) && isInstant(text),
  });
  return ajv;
}

/**
 * A `date-time` the service can use as written: RFC 3339 also admits a leap second (`23:59:60Z`), which
 * no JavaScript Date reads (an Invalid Date reached the query: a 500), and the year 0000, which the
 * database refuses. Such a value is refused as the format's, at its parameter.
 */
function isInstant(text: string): boolean {
  const time = Date.parse(text);
  return Number.isFinite(time) && !text.startsWith('0000');
}

/**
 * The compiled validators of this process, by part and schema text: every listener (web, sandbox, live,
 * operator) and every gateway a process starts compiles the same schemas, and compiling is most of the
 * cost of starting one (ADR 0044). A validator is a pure function of its input (its `errors` are read
 * right after each call), so listeners can share it. No schema has an `$id`, so one Ajv per mode holds
 * them all without a clash.
 */
const validators = new Map<string, ValidateFunction>();
let ajvs: { strict: Ajv; coercing: Ajv } | undefined;

/**
 * Bodies are JSON and must carry the right types: no coercion, so "1000" is not a number. Query
 * strings, path parameters and headers arrive as text and are coerced to their declared types.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  ajvs ??= { strict: createAjv(false), coercing: createAjv(true) };
  const { strict, coercing } = ajvs;
  return ({ schema, httpPart }) => {
    const body = httpPart === 'body';
    const key = `${body ? 'body' : 'text'} ${JSON.stringify(schema)}`;
    let validate = validators.get(key);
    if (validate === undefined) {
      validate = body
        ? (strict.compile(schema as object) as ValidateFunction)
        : decimalNumbersOnly(schema, coercing.compile(schema as object) as ValidateFunction);
      validators.set(key, validate);
    }
    return validate;
  };
}

const DECIMAL_INTEGER = /^-?\d+$/;
const DECIMAL_NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * Ajv coerces text with `Number()`, which also reads `0x10`, `1e1`, `0b1`, ` 10` and `Infinity`. A
 * number in a query, a path or a header is written in decimal digits only; anything else is the
 * `invalid_type` it would be in a body.
 */
function decimalNumbersOnly(schema: unknown, validate: ValidateFunction): ValidateFunction {
  const numeric = numericMembers(schema);
  if (numeric.length === 0) return validate;
  const guarded = ((data: unknown) => {
    const errors: ErrorObject[] = [];
    const values = data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : {};
    for (const { name, type } of numeric) {
      const raw = values[name];
      const texts = Array.isArray(raw) ? raw : [raw];
      const pattern = type === 'integer' ? DECIMAL_INTEGER : DECIMAL_NUMBER;
      if (texts.some((text) => typeof text === 'string' && !pattern.test(text))) {
        errors.push({
          keyword: 'type',
          instancePath: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
          schemaPath: `#/properties/${name}/type`,
          params: { type },
          message: `must be ${type}`,
        });
      }
    }
    if (errors.length > 0) {
      guarded.errors = errors;
      return false;
    }
    const valid = validate(data);
    guarded.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return guarded;
}

function numericMembers(schema: unknown): Array<{ name: string; type: 'integer' | 'number' }> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | null)?.properties;
  if (properties === undefined || properties === null) return [];
  const members: Array<{ name: string; type: 'integer' | 'number' }> = [];
  for (const [name, member] of Object.entries(properties)) {
    const types = Array.isArray(member.type) ? (member.type as unknown[]) : [member.type];
    if (types.includes('integer')) members.push({ name, type: 'integer' });
    else if (types.includes('number')) members.push({ name, type: 'number' });
  }
  return members;
}

const HTTP_PART_LOCATION: Record<string, Location> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

export function locationOf(httpPart: string | undefined): Location {
  return HTTP_PART_LOCATION[httpPart ?? 'body'] ?? 'body';
}

/** Turns Ajv's errors into one issue per problem, with a dotted field path and a stable code. */
export function issuesFromAjv(errors: ErrorObject[], location: Location): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // `propertyNames` wraps the error of the name itself (reported too, with `propertyName`).
    if (error.keyword === 'propertyNames') continue;
    const found = issueFromAjv(error, location);
    if (found === undefined) continue;
    // A member's name broke its rule: named as the card filter names one, never echoed.
    const issue =
      error.propertyName === undefined
        ? found
        : { ...found, path: found.path === '' ? '<name>' : `${found.path}.<name>` };
    const key = `${issue.path}\u0000${issue.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function issueFromAjv(error: ErrorObject, location: Location): ValidationIssue | undefined {
  const base = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const at = (code: IssueCode, message: string, path = base): ValidationIssue => ({
    path,
    in: location,
    code,
    message,
  });
  switch (error.keyword) {
    case 'required':
      return at('required', 'is required', join(base, String(params.missingProperty)));
    case 'additionalProperties':
      return at('unknown_field', 'is not a known field', join(base, String(params.additionalProperty)));
    case 'type':
      return at('invalid_type', `must be ${article(String(params.type))}`);
    case 'enum':
      return at('invalid_value', `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`);
    case 'const':
      return at('invalid_value', `must be ${JSON.stringify(params.allowedValue)}`);
    case 'format':
      return at('invalid_format', `must be a valid ${formatName(String(params.format))}`);
    case 'pattern':
      return at('invalid_format', 'has an invalid format');
    case 'minLength':
      return Number(params.limit) === 1
        ? at('too_short', 'must not be empty')
        : at('too_short', `must be at least ${String(params.limit)} characters`);
    case 'maxLength':
      return at('too_long', `must be at most ${String(params.limit)} characters`);
    case 'minimum':
    case 'exclusiveMinimum':
      return at('too_small', `must be ${String(params.comparison)} ${String(params.limit)}`);
    case 'maximum':
    case 'exclusiveMaximum':
      return at('too_large', `must be ${String(params.comparison)} ${String(params.limit)}`);
    case 'minItems':
      return at('too_short', `must have at least ${String(params.limit)} items`);
    case 'maxItems':
      return at('too_long', `must have at most ${String(params.limit)} items`);
    case 'if':
    case 'anyOf':
    case 'oneOf':
      // The branch errors that follow say what is wrong; the combinator's own line adds nothing.
      return undefined;
    default:
      return at('invalid_value', error.message ?? 'is invalid');
  }
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(base: string, member: string): string {
  return base === '' ? member : `${base}.${member}`;
}

function article(type: string): string {
  const name = type.replace(/,/g, ' or ');
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

function formatName(format: string): string {
  return format === 'email' ? 'e-mail address' : format;
}

export function validationErrorFromFastify(errors: ErrorObject[], httpPart: string | undefined): ApiError {
  const location = locationOf(httpPart);
  const issues = issuesFromAjv(errors, location);
  if (issues.length === 0)
    issues.push({ path: '', in: location, code: 'invalid_value', message: 'is invalid' });
  return ApiError.validation(issues);
}
