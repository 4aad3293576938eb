/**
 * App-defined Live Activity templates (issue 39): the app's own `ActivityAttributes` type with
 * typed fields. Pure functions without server imports, so the console can run the same checks.
 * Each check answers the first problem as a sentence naming the field, or undefined when valid.
 */
import { CUSTOM_ACTIVITY_ID_KEY } from '../delivery/message-content';
import { isIsoTimestamp } from './template-validation';
import { findTemplate } from './templates';

export const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'date'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface CustomField {
  type: FieldType;
  /** Absent or false: the app's struct declares it optional. */
  required?: boolean;
  /** An array of values of `type` (`[String]`). */
  list?: boolean;
}

export type CustomFields = Record<string, CustomField>;

/** A template as the admin API and the TOML declare it. */
export interface CustomTemplateDefinition {
  slug: string;
  /** The Swift `ActivityAttributes` type the app declares: the APNs `attributes-type`. */
  attributesType: string;
  attributes: CustomFields;
  contentState: CustomFields;
}

/** A value an app-defined template's field holds (a date as its ISO 8601 text, as given). */
export type FieldValue = string | number | boolean | FieldValue[];
export type ActivityValues = Record<string, unknown>;

/** The attribute key of Islet's activity id in an app-defined template's start (reserved: no field may use it). */
export const ACTIVITY_ID_KEY = CUSTOM_ACTIVITY_ID_KEY;

export const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
export const ATTRIBUTES_TYPE_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
/** What a slug and an attributesType that break their pattern answer (the API's 400 and the configuration's problem). */
export const SLUG_RULE = 'slug must be 1-63 lowercase letters, digits or -, starting with a letter or digit';
export const ATTRIBUTES_TYPE_RULE = 'attributesType must be a Swift type name: 1-128 letters, digits and _, not starting with a digit';
export const FIELD_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
/** Fields per part (attributes, contentState): a payload of more would rarely fit in 4 KB. */
export const MAX_FIELDS = 32;
/** Templates per app. */
export const MAX_TEMPLATES = 100;
/** The attributes type of the eight built-in templates, which no app-defined template may take. */
export const BUILT_IN_ATTRIBUTES_TYPE = 'IsletActivityAttributes';

const SLUG = new RegExp(SLUG_PATTERN);
const ATTRIBUTES_TYPE = new RegExp(ATTRIBUTES_TYPE_PATTERN);
const FIELD_NAME = new RegExp(FIELD_NAME_PATTERN);

type Part = 'attributes' | 'contentState';
const PARTS: readonly Part[] = ['attributes', 'contentState'];

/**
 * What is wrong with a definition's names and fields (its JSON shape is the route's schema), or
 * undefined. A built-in slug is not a problem here: it is a conflict (409) the service answers.
 * @example definitionProblem({ slug: 'Ride', attributesType: 'RideAttributes', attributes: {}, contentState: {} })
 * // 'slug must be 1-63 lowercase letters, digits or -, starting with a letter or digit'
 */
export function definitionProblem(def: CustomTemplateDefinition): string | undefined {
  if (!SLUG.test(def.slug)) return SLUG_RULE;
  if (!ATTRIBUTES_TYPE.test(def.attributesType)) return ATTRIBUTES_TYPE_RULE;
  if (def.attributesType === BUILT_IN_ATTRIBUTES_TYPE) return `attributesType ${BUILT_IN_ATTRIBUTES_TYPE} belongs to the built-in templates`;
  for (const part of PARTS) {
    const names = Object.keys(def[part]);
    if (names.length > MAX_FIELDS) return `${part} has more than ${MAX_FIELDS} fields`;
    for (const name of names) {
      if (!FIELD_NAME.test(name)) return `${part}.${name} is not a valid field name: letters, digits and _, not starting with a digit`;
      if (name === ACTIVITY_ID_KEY) return `${part}.${name} is reserved for Islet's activity id`;
    }
  }
  if (Object.keys(def.contentState).length === 0) return 'contentState needs at least one field';
  return undefined;
}

/**
 * The definition in its stored form: each field `{ type }` plus `required` and `list` only when
 * true, so two definitions that mean the same compare equal.
 */
export function normalized(def: CustomTemplateDefinition): CustomTemplateDefinition {
  const fields = (part: CustomFields): CustomFields =>
    Object.fromEntries(
      Object.entries(part).map(([name, f]) => [name, { type: f.type, ...(f.required ? { required: true } : {}), ...(f.list ? { list: true } : {}) }]),
    );
  return { slug: def.slug, attributesType: def.attributesType, attributes: fields(def.attributes ?? {}), contentState: fields(def.contentState) };
}

/** Whether a slug is one of the eight built-in templates'. */
export const isBuiltInSlug = (slug: string): boolean => findTemplate(slug) !== undefined;

/**
 * Why `next` may not replace `current` while activities of the template are Active (they were
 * started with `current`'s fields, and the app on the phone decodes them): the attributes type and
 * every field stay as they are, and fields are only added as optional ones. Undefined when it may.
 * @example replacementProblem(ride, { ...ride, contentState: { ...ride.contentState, speed: { type: 'number', required: true } } })
 * // 'contentState.speed must be optional: a template in use can only gain optional fields'
 */
export function replacementProblem(current: CustomTemplateDefinition, next: CustomTemplateDefinition): string | undefined {
  if (next.attributesType !== current.attributesType) return `attributesType cannot change from ${current.attributesType} while the template is in use`;
  for (const part of PARTS) {
    for (const [name, field] of Object.entries(current[part])) {
      const now = next[part][name];
      if (!now) return `${part}.${name} cannot be removed while the template is in use`;
      if (now.type !== field.type || !!now.list !== !!field.list || !!now.required !== !!field.required)
        return `${part}.${name} cannot change while the template is in use`;
    }
    for (const [name, field] of Object.entries(next[part])) {
      if (!current[part][name] && field.required) return `${part}.${name} must be optional: a template in use can only gain optional fields`;
    }
  }
  return undefined;
}

/**
 * The first problem of an activity's data under an app-defined template: the shape, unknown
 * fields, missing required ones, then each value's type; `attributes` may be undefined (`{}`).
 * Date values of valid data are rewritten in place to UTC ISO 8601 (`…+01:00` → `…Z`).
 * @example customDataError(ride, { driver: 'Ana' }, { etaMinutes: 'soon' }) // 'contentState.etaMinutes must be an integer'
 */
export function customDataError(def: CustomTemplateDefinition, attributes: unknown, contentState: unknown): string | undefined {
  return partError(def, 'attributes', attributes ?? {}) ?? partError(def, 'contentState', contentState);
}

/** The first problem of a contentState alone (update, end). */
export function customContentStateError(def: CustomTemplateDefinition, contentState: unknown): string | undefined {
  return partError(def, 'contentState', contentState);
}

function partError(def: CustomTemplateDefinition, part: Part, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${part} must be an object`;
  const fields = def[part];
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!Object.hasOwn(fields, key)) return `${part}.${key} is not a field of template ${def.slug}`;
  for (const [name, field] of Object.entries(fields)) if (field.required && record[name] === undefined) return `${part}.${name} is required`;
  for (const [name, field] of Object.entries(fields)) {
    const v = record[name];
    if (v === undefined) continue;
    if (field.list) {
      if (!Array.isArray(v) || !v.every((item) => isOfType(field.type, item))) return `${part}.${name} must be a list of ${TYPE_NAMES[field.type].plural}`;
    } else if (!isOfType(field.type, v)) return `${part}.${name} must be ${TYPE_NAMES[field.type].one}`;
    // A valid date is kept as UTC ISO 8601, what Android gets (iOS gets its seconds since 2001 either way).
    if (field.type === 'date') record[name] = field.list ? (v as string[]).map(utc) : utc(v as string);
  }
  return undefined;
}

const TYPE_NAMES: Record<FieldType, { one: string; plural: string }> = {
  string: { one: 'a string', plural: 'strings' },
  integer: { one: 'an integer', plural: 'integers' },
  number: { one: 'a number', plural: 'numbers' },
  boolean: { one: 'a boolean', plural: 'booleans' },
  date: { one: 'a date (an ISO 8601 timestamp with an offset)', plural: 'dates (ISO 8601 timestamps with an offset)' },
};

const utc = (iso: string) => new Date(iso).toISOString();

function isOfType(type: FieldType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return Number.isSafeInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
      return typeof v === 'string' && isIsoTimestamp(v);
  }
}

/** The names of a part's date fields: what the queued content keeps so the APNs payload converts them. */
export function dateFields(fields: CustomFields): string[] {
  return Object.entries(fields)
    .filter(([, f]) => f.type === 'date')
    .map(([name]) => name);
}
