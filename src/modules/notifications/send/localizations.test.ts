import { describe, expect, test } from 'bun:test';
import { HttpError } from '../../../lib/errors';
import { bestLocalization, checkedLocalizations, MAX_LOCALIZATIONS } from './localizations';

describe('bestLocalization', () => {
  const tags = ['de', 'de-AT', 'fr', 'zh-Hant', 'pt-BR'];

  test('the exact tag wins, whatever its case', () => {
    expect(bestLocalization(tags, 'de-AT')).toBe('de-AT');
    expect(bestLocalization(tags, 'DE-at')).toBe('de-AT');
    expect(bestLocalization(tags, 'pt-BR')).toBe('pt-BR');
  });

  test("else the tag's language, or a shorter tag of it (zh-Hant-TW → zh-Hant)", () => {
    expect(bestLocalization(tags, 'de-DE')).toBe('de');
    expect(bestLocalization(tags, 'fr-CA')).toBe('fr');
    expect(bestLocalization(tags, 'zh-Hant-TW')).toBe('zh-Hant');
    expect(bestLocalization(tags, 'de-AT-x-vienna')).toBe('de-AT');
  });

  test("else none: the template's own text (a language without a localization, no locale, a region-only match)", () => {
    expect(bestLocalization(tags, 'en-US')).toBeUndefined();
    expect(bestLocalization(tags, null)).toBeUndefined();
    expect(bestLocalization(tags, 'pt-PT')).toBeUndefined();
    expect(bestLocalization(tags, 'zh-Hans-CN')).toBeUndefined();
  });
});

describe('checkedLocalizations', () => {
  const detail = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      if (e instanceof HttpError) return `${e.status} ${e.detail}`;
      throw e;
    }
    throw new Error('expected a 400');
  };

  test('tags are kept in canonical form, with their placeholders', () => {
    const { localizations, placeholders } = checkedLocalizations({ 'de-at': { title: 'Servus {{name}}' }, FR: { body: '{{count}} messages', subtitle: 'Boîte' } }, '', false);
    expect(localizations).toEqual({ 'de-AT': { title: 'Servus {{name}}' }, fr: { body: '{{count}} messages', subtitle: 'Boîte' } });
    expect(placeholders).toEqual(['name', 'count']);
  });

  test('none given, or an empty object, is none', () => {
    expect(checkedLocalizations(undefined, '', false)).toEqual({ localizations: undefined, placeholders: [] });
    expect(checkedLocalizations({}, '', true)).toEqual({ localizations: undefined, placeholders: [] });
  });

  test('what cannot be sent answers 400 naming the tag and the field', () => {
    expect(detail(() => checkedLocalizations({ en_US: { title: 'x' } }, 'templates.0.', false))).toBe(
      '400 templates.0.localizations: en_US is not a BCP 47 language tag (such as de, de-AT, pt-BR)',
    );
    expect(detail(() => checkedLocalizations({ 'de-at': { title: 'a' }, 'de-AT': { title: 'b' } }, '', false))).toBe('400 localizations: de-AT and de-at are the same tag de-AT');
    expect(detail(() => checkedLocalizations({ de: { title: '' } }, '', false))).toBe('400 localizations.de.title must not be empty');
    expect(detail(() => checkedLocalizations({ de: { body: 'Hallo {{name' } }, '', false))).toBe('400 localizations.de.body has an invalid placeholder: {{name');
    expect(detail(() => checkedLocalizations({ de: {} }, '', false))).toBe('400 localizations.de has none of title, body and subtitle');
    expect(detail(() => checkedLocalizations({ de: { title: 'x' } }, '', true))).toBe('400 localizations cannot be used with silent: a background push shows no text');
    const many = Object.fromEntries(Array.from({ length: MAX_LOCALIZATIONS + 1 }, (_, i) => [`x-t${i}`, { title: 't' }]));
    expect(detail(() => checkedLocalizations(many, '', false))).toBe(`400 localizations has ${MAX_LOCALIZATIONS + 1} tags; at most ${MAX_LOCALIZATIONS} are allowed`);
  });
});
