import { describe, expect, test } from 'bun:test';
import { parseTemplate, placeholderNames, PlaceholderSyntaxError, renderTemplate } from './placeholders';

const syntaxError = (template: string): string | undefined => {
  try {
    parseTemplate(template);
    return undefined;
  } catch (e) {
    if (e instanceof PlaceholderSyntaxError) return e.fragment;
    throw e;
  }
};

describe('placeholder syntax', () => {
  test('a template splits into text and placeholder names, spaces inside the braces ignored', () => {
    expect(parseTemplate('Hi {{ name }}, {{count}} new')).toEqual([{ text: 'Hi ' }, { name: 'name' }, { text: ', ' }, { name: 'count' }, { text: ' new' }]);
    expect(parseTemplate('{{\tuser.first-name_2 }}')).toEqual([{ name: 'user.first-name_2' }]);
    expect(parseTemplate('')).toEqual([]);
  });

  test('single braces are plain text', () => {
    expect(parseTemplate('{"a": 1} and {b}')).toEqual([{ text: '{"a": 1} and {b}' }]);
  });

  test('placeholder names are listed once each, title first, in order of appearance', () => {
    expect(placeholderNames('Hi {{name}}', '{{ count }} new for {{ name }}, {{count}}')).toEqual(['name', 'count']);
    expect(placeholderNames('no placeholders')).toEqual([]);
  });

  test('unbalanced braces, empty and invalid names are refused with the bad text', () => {
    expect(syntaxError('Hi {{name')).toBe('{{name');
    expect(syntaxError('Hi name}} there')).toBe('}}');
    expect(syntaxError('{{a}} then }}')).toBe('}}');
    expect(syntaxError('Hi {{}}')).toBe('{{}}');
    expect(syntaxError('Hi {{   }}')).toBe('{{   }}');
    expect(syntaxError('Hi {{first name}}')).toBe('{{first name}}');
    expect(syntaxError('{{a {{b}}')).toBe('{{a {{b}}');
    expect(syntaxError('{{{name}}}')).toBe('{{{name}}');
    expect(syntaxError('{{na$me}}')).toBe('{{na$me}}');
  });

  test('the bad text quoted back is clipped when an unclosed brace runs to the end of a long body', () => {
    const fragment = syntaxError(`x {{${'a'.repeat(200)}`)!;
    expect(fragment).toBe(`{{${'a'.repeat(38)}…`);
  });
});

describe('rendering', () => {
  test('placeholders are filled from the variables, with or without spaces inside the braces', () => {
    expect(renderTemplate('Hi {{ name }}, you have {{count}} new', { name: 'Ada', count: '3' })).toBe('Hi Ada, you have 3 new');
  });

  test('variables that match no placeholder are ignored', () => {
    expect(renderTemplate('Hi {{name}}', { name: 'Ada', unused: 'x' })).toBe('Hi Ada');
  });

  test('placeholders without a variable render as empty strings', () => {
    expect(renderTemplate('Hi {{name}}!', {})).toBe('Hi !');
    expect(renderTemplate('[{{ a }}|{{b}}]')).toBe('[|]');
  });

  test('names match exactly, case included', () => {
    expect(renderTemplate('{{Name}}/{{name}}', { name: 'x' })).toBe('/x');
  });

  test('values are inserted as they are: not HTML-escaped, not read as templates or replacement patterns', () => {
    expect(renderTemplate('{{v}}', { v: '<b>Tom & "Jerry"</b>' })).toBe('<b>Tom & "Jerry"</b>');
    expect(renderTemplate('{{v}} {{w}}', { v: '{{w}}', w: 'W' })).toBe('{{w}} W');
    expect(renderTemplate('{{v}}', { v: "$& $1 $' $$" })).toBe("$& $1 $' $$");
  });

  test('names of Object.prototype members render empty unless given', () => {
    expect(renderTemplate('{{constructor}}{{toString}}{{__proto__}}', {})).toBe('');
    expect(renderTemplate('{{constructor}}', { constructor: 'c' })).toBe('c');
  });

  test('non-ASCII text and letters in names are kept', () => {
    expect(renderTemplate('Bonjour {{ prénom }} 👋', { prénom: 'Zoë' })).toBe('Bonjour Zoë 👋');
  });
});
