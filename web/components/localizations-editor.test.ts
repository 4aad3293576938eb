import { expect, test } from 'bun:test';
import { localizationsDraftOf, localizationsOf, localizedTexts } from './localizations-editor';

const rows = localizationsDraftOf({ de: { title: 'Hallo {{name}}', body: 'Willkommen' }, 'de-AT': { subtitle: 'Neu' } });

test('the rows give back the localizations they were made of; empty parts and empty rows are left out', () => {
  expect(localizationsOf(rows)).toEqual({ localizations: { de: { title: 'Hallo {{name}}', body: 'Willkommen' }, 'de-AT': { subtitle: 'Neu' } } });
  expect(localizationsOf([...rows, { tag: '', title: '', body: '', subtitle: '' }]).localizations).toEqual(localizationsOf(rows).localizations);
  expect(localizationsOf([])).toEqual({});
});

test('a tag that is not BCP 47, or text without a tag, is named before anything is sent', () => {
  expect(localizationsOf([{ tag: 'en_US', title: 'Hi', body: '', subtitle: '' }]).error).toBe('en_US is not a BCP 47 language tag (such as de, de-AT, pt-BR)');
  expect(localizationsOf([{ tag: ' ', title: 'Hi', body: '', subtitle: '' }]).error).toMatch(/^A language is not a BCP 47 language tag/);
});

test("the preview of a language shows its parts over the template's own", () => {
  const base = { title: 'Hello {{name}}', body: 'Welcome', subtitle: 'News' };
  expect(localizedTexts(base, rows, '')).toEqual(base);
  expect(localizedTexts(base, rows, 'de')).toEqual({ title: 'Hallo {{name}}', body: 'Willkommen', subtitle: 'News' });
  expect(localizedTexts(base, rows, 'de-AT')).toEqual({ title: 'Hello {{name}}', body: 'Welcome', subtitle: 'Neu' });
});
