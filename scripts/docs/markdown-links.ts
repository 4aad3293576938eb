import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Checks the relative links of Markdown files the way GitHub resolves them: the linked file must
 * exist, and a `#fragment` into a Markdown file must be the anchor of one of its headings.
 */

/** A link that leads nowhere: where it is, what it says, and why it fails. */
export interface LinkProblem {
  file: string;
  line: number;
  target: string;
  problem: string;
}

const FENCE = /^\s{0,3}(```|~~~)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
/** `[text](target)` and `![alt](target)`; the target ends at whitespace (a title may follow). */
const INLINE_LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+[^)]*)?\)/g;
/** `[label]: target` reference definitions. */
const REFERENCE = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;
const CODE_SPAN = /(`+)(?:(?!\1)[\s\S])*?\1/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The anchor GitHub gives a heading's text (github-slugger): lower case, every character that is
 * not a letter, mark, digit, `_`, `-` or space dropped, spaces turned into hyphens.
 * @example githubSlug('Public API (`X-Service-Key: <App Secret>`)') // 'public-api-x-service-key-app-secret'
 */
export function githubSlug(headingText: string): string {
  return renderedText(headingText)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, in order; repeated ones get `-1`, `-2`, … as on GitHub. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of outsideFences(markdown)) {
    const heading = HEADING.exec(text);
    if (!heading?.[2]) continue;
    const slug = githubSlug(heading[2]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every relative link of the files that leads to no file, or to no heading of a Markdown file. */
export function brokenLinks(files: string[], root: string): LinkProblem[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let found = anchorsOf.get(path);
    if (!found) {
      found = headingAnchors(readFileSync(path, 'utf8'));
      anchorsOf.set(path, found);
    }
    return found;
  };
  const problems: LinkProblem[] = [];
  for (const file of files) {
    for (const { line, target } of links(readFileSync(file, 'utf8'))) {
      const problem = linkProblem(file, target, anchors);
      if (problem) problems.push({ file: relative(root, file), line, target, problem });
    }
  }
  return problems;
}

function linkProblem(file: string, target: string, anchors: (path: string) => Set<string>): string | undefined {
  if (target === '' || SCHEME.test(target) || target.startsWith('//')) return undefined;
  const hash = target.indexOf('#');
  const pathPart = hash === -1 ? target : target.slice(0, hash);
  const fragment = hash === -1 ? undefined : target.slice(hash + 1);
  const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart.split('?')[0] ?? ''));
  if (!existsSync(path)) return 'no such file';
  if (fragment === undefined || !path.endsWith('.md') || statSync(path).isDirectory()) return undefined;
  if (fragment === '') return 'empty anchor';
  return anchors(path).has(decodeURIComponent(fragment)) ? undefined : `no heading with the anchor #${fragment}`;
}

/** The link targets of a Markdown text with their line numbers, leaving out code blocks and code spans. */
export function links(markdown: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  for (const { line, text } of outsideFences(markdown)) {
    const prose = text.replace(CODE_SPAN, '');
    const reference = REFERENCE.exec(prose);
    if (reference?.[1]) found.push({ line, target: reference[1] });
    for (const match of prose.matchAll(INLINE_LINK)) found.push({ line, target: match[1] ?? '' });
  }
  return found;
}

/** The lines of a Markdown text outside fenced code blocks, numbered from 1. */
function outsideFences(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opener = FENCE.exec(text)?.[1];
    if (fence) {
      if (opener === fence) fence = undefined;
    } else if (opener) {
      fence = opener;
    } else {
      lines.push({ line: index + 1, text });
    }
  });
  return lines;
}

/** A heading's text as GitHub renders it: links by their text, without code marks and `*` emphasis. */
function renderedText(heading: string): string {
  return heading
    .replace(/!?\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, '$1')
    .replace(/`+/g, '')
    .replace(/(\*{1,3})(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/\\(.)/g, '$1');
}

/** README.md and every Markdown page of docs/, as paths under `root`. */
export function projectMarkdown(root: string): string[] {
  const docs = join(root, 'docs');
  const pages = existsSync(docs) ? [...new Bun.Glob('*.md').scanSync(docs)].sort().map((name) => join(docs, name)) : [];
  return [join(root, 'README.md'), ...pages];
}
