import { describe, expect, test } from 'bun:test';
import { canonicalLocale, canonicalTimeZone, localeLanguage } from './locale';

describe('language tags', () => {
  test('BCP 47 tags are taken in their canonical case', () => {
    expect(canonicalLocale('de-AT')).toBe('de-AT');
    expect(canonicalLocale('pt-br')).toBe('pt-BR');
    expect(canonicalLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalLocale('fr')).toBe('fr');
  });

  test('what is not a tag is refused', () => {
    for (const bad of ['', 'en_US', 'de-', 'x', '12', 'a'.repeat(65), 'de AT']) expect(canonicalLocale(bad)).toBeUndefined();
  });

  test('the language of a tag is its first subtag', () => {
    expect(localeLanguage('de-AT')).toBe('de');
    expect(localeLanguage('zh-Hant-TW')).toBe('zh');
    expect(localeLanguage('fr')).toBe('fr');
  });
});

describe('time zones', () => {
  test('IANA names are taken in their canonical spelling', () => {
    expect(canonicalTimeZone('Europe/Vienna')).toBe('Europe/Vienna');
    expect(canonicalTimeZone('europe/vienna')).toBe('Europe/Vienna');
    expect(canonicalTimeZone('Pacific/Kiritimati')).toBe('Pacific/Kiritimati');
    expect(canonicalTimeZone('America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
  });

  test('offsets, abbreviations the database lacks and unknown names are refused', () => {
    for (const bad of ['+01:00', '-0500', 'Mars/Olympus', 'CEST', '', 'Europe/', '../etc/passwd']) expect(canonicalTimeZone(bad)).toBeUndefined();
  });
});
