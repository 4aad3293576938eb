import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokenLinks, githubSlug, headingAnchors, links, projectMarkdown } from './markdown-links';

const ROOT = join(import.meta.dir, '..', '..');

describe("the project's Markdown", () => {
  test('every relative link and #anchor of README.md and docs/*.md leads to a file and a heading that exist', () => {
    const files = projectMarkdown(ROOT);
    expect(files.length).toBeGreaterThan(5);
    const problems = brokenLinks(files, ROOT).map((p) => `${p.file}:${p.line} ${p.target}: ${p.problem}`);
    expect(problems).toEqual([]);
  });

  test('the README links every page of docs/, so a reader who reads only the README finds them', () => {
    const readmeTargets = new Set(links(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((l) => l.target.split('#')[0]));
    const pages = projectMarkdown(ROOT).slice(1).map((path) => `docs/${path.split('/').pop()}`);
    expect(pages.filter((page) => !readmeTargets.has(page))).toEqual([]);
  });

  test('the README stays short: what Islet is, the first steps and a map of the docs', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThan(300);
  });
});

describe('GitHub anchors', () => {
  test('punctuation is dropped, spaces become hyphens, hyphens and underscores stay', () => {
    expect(githubSlug('Public API (`X-Service-Key: <App Secret>`)')).toBe('public-api-x-service-key-app-secret');
    expect(githubSlug('Figures (2026-11-23, after issue 17)')).toBe('figures-2026-11-23-after-issue-17');
    expect(githubSlug('TLS and reverse proxies')).toBe('tls-and-reverse-proxies');
    expect(githubSlug('`database.outbox_thread` & *more*')).toBe('databaseoutbox_thread--more');
    expect(githubSlug('1. Registering a device')).toBe('1-registering-a-device');
    expect(githubSlug('See [the guide](api.md)')).toBe('see-the-guide');
  });

  test('a repeated heading gets -1, -2; headings inside code blocks are not headings', () => {
    const anchors = headingAnchors(['# Notifications', '## Notifications', '```yaml', '# prometheus.yml', '```', '### Notifications #'].join('\n'));
    expect([...anchors]).toEqual(['notifications', 'notifications-1', 'notifications-2']);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'islet-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs', 'guide.md'), '# Guide\n\n## Start here\n\nBack to [the top](#guide).\n');
  writeFileSync(join(dir, 'data.json'), '{}');
  writeFileSync(
    join(dir, 'README.md'),
    [
      '# Readme',
      '[ok](docs/guide.md#start-here) [ok too](docs/guide.md) [file](data.json) [web](https://example.com/x#y) [self](#readme)',
      '[gone](docs/missing.md)',
      '[wrong anchor](docs/guide.md#start)',
      '[wrong self anchor](#nowhere)',
      '`[in code](nowhere.md)`',
      '```',
      '[in a block](nowhere.md)',
      '```',
      '[ref]: docs/none.md',
    ].join('\n'),
  );

  test('reports a missing file, a missing anchor in another page and in the same page, and a reference to nothing', () => {
    const problems = brokenLinks(projectMarkdown(dir), dir);
    expect(problems).toEqual([
      { file: 'README.md', line: 3, target: 'docs/missing.md', problem: 'no such file' },
      { file: 'README.md', line: 4, target: 'docs/guide.md#start', problem: 'no heading with the anchor #start' },
      { file: 'README.md', line: 5, target: '#nowhere', problem: 'no heading with the anchor #nowhere' },
      { file: 'README.md', line: 10, target: 'docs/none.md', problem: 'no such file' },
    ]);
  });
});
