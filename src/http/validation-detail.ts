import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { FIELD, INVALID_DETAIL } from './schemas';

/**
 * Turns the first TypeBox error of a request into a sentence that names the field, e.g.
 * `contentState.progress is required` or `limit must be at most 100`.
 */
export function validationDetail(errors: ValueError[], part: string): string {
  const first = pickError(errors);
  if (!first) return `${partName(part)} is invalid`;
  const field = first.path === '' ? partName(part) : first.path.slice(1).split('/').map(unescapePointer).join('.');
  const s = first.schema as unknown as Record<string | symbol, unknown>;
  if (typeof s[INVALID_DETAIL] === 'string') return s[INVALID_DETAIL].replaceAll(FIELD, field);
  switch (first.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `${field} is required`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `${field} is not a known field`;
    case ValueErrorType.String:
      return `${field} must be a string`;
    case ValueErrorType.Integer:
      return `${field} must be an integer`;
    case ValueErrorType.Number:
      return `${field} must be a number`;
    case ValueErrorType.Boolean:
      return `${field} must be true or false`;
    case ValueErrorType.Array:
      return `${field} must be an array`;
    case ValueErrorType.Object:
      return first.path === '' && part === 'body' ? 'request body must be a JSON object' : `${field} must be an object`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `${field} must be at least ${s.minimum}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `${field} must be at most ${s.maximum}`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? `${field} must not be empty` : `${field} must be at least ${s.minLength} characters`;
    case ValueErrorType.StringMaxLength:
      return `${field} must be at most ${s.maxLength} characters`;
    case ValueErrorType.StringPattern:
      return `${field} has an invalid format`;
    case ValueErrorType.ArrayMinItems:
      return `${field} must have at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`;
    case ValueErrorType.ArrayMaxItems:
      return `${field} must have at most ${s.maxItems} items`;
    case ValueErrorType.Union:
    case ValueErrorType.Literal: {
      const options = literalOptions(s);
      return options ? `${field} must be one of ${options.join(', ')}` : `${field} is invalid`;
    }
    default:
      return `${field} is invalid`;
  }
}

/** A missing property reports twice (required, then its type): keep the most telling one. */
function pickError(errors: ValueError[]): ValueError | undefined {
  return errors.find((e) => e.type === ValueErrorType.ObjectRequiredProperty) ?? errors[0];
}

function literalOptions(schema: Record<string | symbol, unknown>): string[] | undefined {
  if ('const' in schema) return [String(schema.const)];
  const anyOf = schema.anyOf as Record<string, unknown>[] | undefined;
  if (anyOf?.every((o) => 'const' in o)) return anyOf.map((o) => String(o.const));
  return undefined;
}

const partName = (part: string) => (part === 'body' ? 'request body' : part);
const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');
