/**
 * Placeholders of notification templates: `{{name}}`, with optional spaces inside the braces.
 * Names are letters, digits, `_`, `.` and `-`. Pure functions: no I/O, nothing of the app.
 */

/** A template split into literal text and placeholder names, ready to render many times. */
export type Segment = { text: string } | { name: string };

/** A template with broken placeholder syntax; `fragment` is the offending text as written. */
export class PlaceholderSyntaxError extends Error {
  constructor(readonly fragment: string) {
    super(`invalid placeholder: ${fragment}`);
    this.name = 'PlaceholderSyntaxError';
  }
}

const NAME = /^[\p{L}\p{N}_.-]+$/u;
const OPEN = '{{';
const CLOSE = '}}';
/** Longest fragment quoted back in an error, so an unclosed `{{` does not echo a whole body. */
const MAX_FRAGMENT = 40;

/**
 * Splits a template into segments, or throws PlaceholderSyntaxError for an unclosed `{{`, a stray
 * `}}`, or an empty or invalid name. Single `{` and `}` are plain text.
 * @example parseTemplate('Hi {{ name }}!') // [{text:'Hi '}, {name:'name'}, {text:'!'}]
 */
export function parseTemplate(template: string): Segment[] {
  const segments: Segment[] = [];
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf(OPEN, pos);
    const literalEnd = open === -1 ? template.length : open;
    const stray = template.indexOf(CLOSE, pos);
    if (stray !== -1 && stray < literalEnd) throw new PlaceholderSyntaxError(CLOSE);
    if (literalEnd > pos) segments.push({ text: template.slice(pos, literalEnd) });
    if (open === -1) break;
    const close = template.indexOf(CLOSE, open + OPEN.length);
    if (close === -1) throw new PlaceholderSyntaxError(clip(template.slice(open)));
    const name = template.slice(open + OPEN.length, close).trim();
    if (!NAME.test(name)) throw new PlaceholderSyntaxError(clip(template.slice(open, close + CLOSE.length)));
    segments.push({ name });
    pos = close + CLOSE.length;
  }
  return segments;
}

/**
 * The distinct placeholder names of the given texts, in order of first appearance.
 * Throws PlaceholderSyntaxError like parseTemplate.
 * @example placeholderNames('Hi {{name}}', '{{ count }} new, {{name}}') // ['name', 'count']
 */
export function placeholderNames(...templates: string[]): string[] {
  const names = new Set<string>();
  for (const template of templates) {
    for (const segment of parseTemplate(template)) if ('name' in segment) names.add(segment.name);
  }
  return [...names];
}

/**
 * Fills a template's placeholders from `variables`. Variables that match no placeholder are
 * ignored; a placeholder without a variable renders as an empty string. Values are inserted as
 * they are: not HTML-escaped, and never read again as template text.
 * @example renderTemplate('Hi {{ name }}', { name: 'Ada', extra: 'x' }) // 'Hi Ada'
 */
export function renderTemplate(template: string, variables: Readonly<Record<string, string>> = {}): string {
  let out = '';
  for (const segment of parseTemplate(template)) {
    // Own properties only: `{{constructor}}` must not pick up Object.prototype.constructor.
    out += 'text' in segment ? segment.text : Object.hasOwn(variables, segment.name) ? (variables[segment.name] ?? '') : '';
  }
  return out;
}

function clip(fragment: string): string {
  return fragment.length <= MAX_FRAGMENT ? fragment : `${fragment.slice(0, MAX_FRAGMENT)}…`;
}
