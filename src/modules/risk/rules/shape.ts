import type { TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import type { TLocalizedValidationError } from 'typebox/error';
import type { IssueCode } from '../../../http/errors.js';
import type { RuleIssue, RuleIssueReason } from './errors.js';
import {
  AllShapeSchema,
  AnyShapeSchema,
  ComparisonShapeSchema,
  NotShapeSchema,
  RuleSchema,
} from './schemas.js';

/** A schema checked at one place of a rule, with the reasons its keywords mean there. */
export interface Shape {
  check(value: unknown, path: string): RuleIssue[];
}

type Reasons = Partial<Record<string, RuleIssueReason>>;
/** The codes a schema's keywords give, each its own reason unless the place says otherwise. */
type ShapeCode = IssueCode & RuleIssueReason;

function shape(schema: TSchema, reasons: Reasons = {}): Shape {
  let validator: Validator | undefined;
  return {
    check(value, path) {
      // Compiled on first use: a process that never checks a rule never compiles one.
      validator ??= Compile(schema);
      return validator.Check(value)
        ? []
        : validator.Errors(value).flatMap((error) => issuesOf(error, path, reasons));
    },
  };
}

export const SHAPES = {
  rule: shape(RuleSchema, { enum: 'unknown_action' }),
  all: shape(AllShapeSchema, { minItems: 'empty_condition', maxItems: 'too_many_conditions' }),
  any: shape(AnyShapeSchema, { minItems: 'empty_condition', maxItems: 'too_many_conditions' }),
  not: shape(NotShapeSchema),
  comparison: shape(ComparisonShapeSchema),
} as const;

export function join(path: string, member: string | number): string {
  return path === '' ? String(member) : `${path}.${member}`;
}

function issuesOf(error: TLocalizedValidationError, base: string, reasons: Reasons): RuleIssue[] {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(join, base);
  const issue = (code: ShapeCode, message: string, at = path): RuleIssue => ({
    path: at,
    code,
    reason: reasons[error.keyword] ?? code,
    message,
  });
  switch (error.keyword) {
    case 'required':
      return error.params.requiredProperties.map((member) =>
        issue('required', 'is required', join(path, member)),
      );
    case 'additionalProperties':
      return error.params.additionalProperties.map((member) =>
        issue('unknown_field', 'is not a known field', join(path, member)),
      );
    case 'boolean':
      // `additionalProperties: false` also reports each member as a schema of `false`: said above.
      return [];
    case 'type': {
      const type = Array.isArray(error.params.type) ? error.params.type.join(' or ') : error.params.type;
      return [issue('invalid_type', `must be ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`)];
    }
    case 'enum':
      return [issue('invalid_value', `must be one of: ${error.params.allowedValues.join(', ')}`)];
    case 'minLength':
      return [issue('too_short', 'must not be empty')];
    case 'maxLength':
      return [issue('too_long', `must be at most ${error.params.limit} characters`)];
    case 'pattern':
      return [issue('invalid_format', 'must be plain text: no control characters, no space at either end')];
    case 'minItems':
      return [issue('too_short', 'must hold at least one condition')];
    case 'maxItems':
      return [issue('too_long', `must hold at most ${error.params.limit} conditions`)];
    default:
      return [issue('invalid_value', error.message)];
  }
}
