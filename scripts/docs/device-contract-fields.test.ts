import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { LIVE_ACTIVITY_TEMPLATES, type TemplateDefinition } from '../../src/modules/live-activities/templates';
import { BEGIN_MARKER, DEVICE_CONTRACT_PATH, END_MARKER, renderFieldReference, withFieldReference } from './device-contract-fields';

const page = () => readFileSync(DEVICE_CONTRACT_PATH, 'utf8');

describe('the field reference of docs/device-contract.md', () => {
  test('is what scripts/docs/device-contract-fields.ts renders from templates.ts (run it after changing a template)', () => {
    const current = page();
    expect(withFieldReference(current, renderFieldReference())).toBe(current);
  });

  test('names every field of the eight templates with its part, and every encoding rule', () => {
    const section = renderFieldReference();
    for (const t of LIVE_ACTIVITY_TEMPLATES) {
      expect(section).toContain(`### \`${t.slug}\``);
      for (const f of t.attributes) expect(section).toContain(`| \`${f.name}\` | attributes |`);
      for (const f of t.contentState) expect(section).toContain(`| \`${f.name}\` | contentState |`);
    }
    for (const rule of ['text', 'percent', 'step-index', 'timestamp', 'one-of', 'names', 'pairs']) expect(section).toContain(`| \`${rule}\` |`);
  });

  test('follows a change of a definition: a page rendered before it is no longer in step', () => {
    const changed: TemplateDefinition[] = LIVE_ACTIVITY_TEMPLATES.map((t) =>
      t.slug === 'progress-bar' ? { ...t, contentState: [...t.contentState, { name: 'eta', required: false, rule: 'text', description: 'Time left.' }] } : t,
    );
    const before = withFieldReference(page(), renderFieldReference());
    expect(withFieldReference(before, renderFieldReference(changed))).not.toBe(before);
    expect(renderFieldReference(changed)).toContain('| `eta` | contentState | no | `text` | Time left. |');
  });

  test('a required-unless field says which other field stands in for it (countdown)', () => {
    const section = renderFieldReference();
    expect(section).toContain('| `targetDate` | contentState | unless `remaining` is given | `timestamp` |');
    expect(section).toContain('| `remaining` | contentState | unless `targetDate` is given | `text` |');
  });

  test("the page's Swift and Kotlin show every template and read every field (a new one needs code there too)", () => {
    const blocks = (language: string) => [...page().matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]).join('\n');
    const swift = blocks('swift');
    const kotlin = blocks('kotlin');
    for (const t of LIVE_ACTIVITY_TEMPLATES) {
      expect(swift).toContain(`case "${t.slug}"`);
      expect(kotlin).toContain(`"${t.slug}"`);
      for (const f of [...t.attributes, ...t.contentState]) {
        expect(swift).toContain(`"${f.name}"`);
        // An SF Symbol name means nothing on Android (its description says so).
        if (f.name !== 'statusIcon') expect(kotlin).toContain(`"${f.name}"`);
      }
    }
  });

  test('a page without both markers, in order, is refused rather than half rewritten', () => {
    expect(() => withFieldReference('no markers', 'x')).toThrow('must hold');
    expect(() => withFieldReference(`${END_MARKER}\n${BEGIN_MARKER}`, 'x')).toThrow('must hold');
    expect(() => withFieldReference(`${BEGIN_MARKER}\n${BEGIN_MARKER}\n${END_MARKER}`, 'x')).toThrow('must hold');
    expect(withFieldReference(`a\n${BEGIN_MARKER}\nold\n${END_MARKER}\nb`, 'new')).toBe(`a\n${BEGIN_MARKER}\nnew\n${END_MARKER}\nb`);
  });
});
