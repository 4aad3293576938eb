import type { AppContext } from '../../../context';
import { isoTime } from '../../../lib/clock';
import { echoed, HttpError } from '../../../lib/errors';
import type { AppsService } from '../../apps/apps.service';
import { MAX_PAYLOAD_BYTES, payloadBytes } from '../../delivery/payloads';
import { PlaceholderSyntaxError, placeholderNames, renderTemplate } from '../send/placeholders';
import type { ReleaseRow, ReleaseStatus, TemplateInput, TemplateRow } from './releases.types';
import { checkedOptions, optionsJson, parseOptions, type TemplateOptions } from './template-options';
import { checkedLocalizations, localizationsJson, parseLocalizations, type Localizations } from '../send/localizations';
import { releasesRepository } from './releases.repository';

/**
 * Allowed status changes. Templates can be edited only in Draft and Testing, and a release that
 * has been Live never becomes editable again, so a version number always names the texts its users
 * received. Archived → Live is the roll back. Setting the current status again changes nothing.
 */
const NEXT: Record<ReleaseStatus, readonly ReleaseStatus[]> = {
  Draft: ['Testing', 'Live', 'Archived'],
  Testing: ['Draft', 'Live', 'Archived'],
  Live: ['Archived'],
  Archived: ['Live'],
};

const FROZEN: readonly ReleaseStatus[] = ['Live', 'Archived'];

/** A template as the admin API shows it: its texts, placeholders and the options it was given. */
export type TemplateView = { slug: string; title: string; body: string; placeholders: string[]; localizations?: Localizations } & TemplateOptions;

/** What the admin API takes for a template: texts and the optional features. */
export type TemplateBody = { title?: string; body?: string; localizations?: Localizations } & TemplateOptions;

export interface ReleaseView {
  version: number;
  status: ReleaseStatus;
  createdAt: string;
  updatedAt: string;
  templates: TemplateView[];
}

export const releaseNotFound = () => new HttpError(404, 'release not found');
/** The spec's 404, its detail word for word, naming the slug and the release searched (extension members). */
export const templateNotFound = (slug: string, releaseVersion: number) =>
  new HttpError(404, 'notification template not found', {}, { slug: echoed(slug), releaseVersion });

/** Use cases of releases and their notification templates (the admin API's side). */
export function releasesService(ctx: AppContext, apps: AppsService) {
  const repo = releasesRepository(ctx.db.sql);
  const { clock } = ctx;

  const requireRelease = async (appId: string, version: number): Promise<ReleaseRow> => {
    await apps.get(appId);
    const row = await repo.find(appId, version);
    if (!row) throw releaseNotFound();
    return row;
  };

  const requireEditable = (release: ReleaseRow) => {
    if (FROZEN.includes(release.status)) {
      throw new HttpError(409, `release ${release.version} is ${release.status}; templates of a Live or Archived release cannot be changed`);
    }
  };

  const views = async (appId: string, rows: ReleaseRow[]): Promise<ReleaseView[]> => {
    const byVersion = new Map<number, TemplateView[]>(rows.map((r) => [r.version, []]));
    for (const t of await repo.templates(appId, rows.map((r) => r.version))) byVersion.get(t.version)?.push(templateView(t));
    return rows.map((r) => ({
      version: r.version,
      status: r.status,
      createdAt: isoTime(r.createdAt),
      updatedAt: isoTime(r.updatedAt),
      templates: byVersion.get(r.version) ?? [],
    }));
  };
  const view = async (row: ReleaseRow): Promise<ReleaseView> => (await views(row.appId, [row]))[0]!;

  return {
    /** Every release of an app with its templates, newest version first. */
    async list(appId: string): Promise<ReleaseView[]> {
      await apps.get(appId);
      return views(appId, await repo.list(appId));
    },

    async get(appId: string, version: number): Promise<ReleaseView> {
      return view(await requireRelease(appId, version));
    },

    /** Creates a release with its templates; created Live, it archives the previous Live one. */
    async create(appId: string, input: { version: number; status?: ReleaseStatus; templates?: ({ slug: string } & TemplateBody)[] }): Promise<ReleaseView> {
      await apps.get(appId);
      const templates = (input.templates ?? []).map((t, i) => checkedTemplate(t, `templates.${i}.`));
      const seen = new Map<string, number>();
      templates.forEach((t, i) => {
        const first = seen.get(t.slug);
        if (first !== undefined) throw new HttpError(400, `templates.${i}.slug ${t.slug} is already used by templates.${first}`);
        seen.set(t.slug, i);
      });
      if (await repo.find(appId, input.version)) throw new HttpError(409, `release ${input.version} already exists`);
      const now = clock.now();
      const row: ReleaseRow = { appId, version: input.version, status: input.status ?? 'Draft', createdAt: now, updatedAt: now };
      await repo.insert(row, templates);
      return view(row);
    },

    /** Moves a release to another status (see NEXT); Live archives the previous Live release. */
    async setStatus(appId: string, version: number, status: ReleaseStatus): Promise<ReleaseView> {
      const release = await requireRelease(appId, version);
      if (release.status !== status) {
        const allowed = NEXT[release.status];
        if (!allowed.includes(status)) {
          throw new HttpError(409, `release ${version} cannot go from ${release.status} to ${status}; it can become ${allowed.join(' or ')}`);
        }
        await repo.setStatus(appId, version, status, clock.now());
      }
      return view((await repo.find(appId, version))!);
    },

    /** Creates or replaces a template of a Draft or Testing release. */
    async putTemplate(appId: string, version: number, slug: string, input: TemplateBody): Promise<{ created: boolean; template: TemplateView }> {
      requireEditable(await requireRelease(appId, version));
      const template = checkedTemplate({ slug, ...input }, '');
      const created = await repo.putTemplate(appId, version, template, clock.now());
      return {
        created,
        template: templateView({ ...template, options: template.options ?? null, localizations: template.localizations ?? null, placeholders: JSON.stringify(template.placeholders) }),
      };
    },

    /** Removes a template of a Draft or Testing release. */
    async deleteTemplate(appId: string, version: number, slug: string): Promise<void> {
      requireEditable(await requireRelease(appId, version));
      if (!(await repo.deleteTemplate(appId, version, slug, clock.now()))) throw templateNotFound(slug, version);
    },
  };
}

/**
 * Finds a template's placeholders, refusing bad syntax (naming the field and the bad text), an
 * empty title (allowed only for a silent push, which sends none), options the platforms would
 * refuse (template-options.ts), localizations (localizations.ts), and texts that could never be
 * sent because they exceed the payload limit with every placeholder empty, in any language.
 */
function checkedTemplate(given: { slug: string } & TemplateBody, path: string): TemplateInput {
  for (const field of ['title', 'body'] as const) if (!given.silent && given[field] === undefined) throw new HttpError(400, `${path}${field} is required`);
  const t = { ...given, title: given.title ?? '', body: given.body ?? '' };
  const names = new Set<string>();
  for (const field of ['title', 'body'] as const) {
    try {
      for (const name of placeholderNames(t[field])) names.add(name);
    } catch (e) {
      if (e instanceof PlaceholderSyntaxError) throw new HttpError(400, `${path}${field} has an invalid placeholder: ${e.fragment}`);
      throw e;
    }
  }
  const { options, placeholders } = checkedOptions(t, path);
  // A background push shows no text: a silent template takes none rather than dropping it.
  for (const field of ['title', 'body'] as const)
    if (options?.silent && t[field] !== '') throw new HttpError(400, `${path}${field} cannot be used with silent: a background push shows no text`);
  if (t.title === '' && !options?.silent) throw new HttpError(400, `${path}title must not be empty`);
  for (const name of placeholders) names.add(name);
  const localized = checkedLocalizations(t.localizations, path, Boolean(options?.silent));
  for (const name of localized.placeholders) names.add(name);
  const empty = renderedEmpty(options);
  const smallestOf = (texts: { title?: string; body?: string; subtitle?: string }) =>
    payloadBytes({
      ...empty,
      ...(texts.subtitle !== undefined ? { subtitle: renderTemplate(texts.subtitle) } : {}),
      type: 'notification',
      templateSlug: t.slug,
      releaseVersion: 0,
      title: renderTemplate(texts.title ?? t.title),
      body: renderTemplate(texts.body ?? t.body),
    });
  const name = path ? path.slice(0, -1) : 'template';
  for (const [field, texts] of [[name, {}] as const, ...Object.entries(localized.localizations ?? {}).map(([tag, l]) => [`${path}localizations.${tag}`, l] as const)]) {
    const smallest = smallestOf(texts);
    if (smallest > MAX_PAYLOAD_BYTES) throw new HttpError(400, `${field} exceeds ${MAX_PAYLOAD_BYTES} bytes of payload even with every placeholder empty (${smallest} bytes)`);
  }
  return { slug: t.slug, title: t.title, body: t.body, placeholders: [...names], options: optionsJson(options), localizations: localizationsJson(localized.localizations) };
}

/** The options as sent with every placeholder empty, for the smallest payload a template can make. */
function renderedEmpty(options: TemplateOptions | undefined): TemplateOptions {
  if (!options) return {};
  const { ttlSeconds: _ttl, ...rest } = options;
  const data = options.data && Object.fromEntries(Object.entries(options.data).map(([k, v]) => [k, renderTemplate(v)]));
  return {
    ...rest,
    ...(data ? { data } : {}),
    ...(options.subtitle !== undefined ? { subtitle: renderTemplate(options.subtitle) } : {}),
    ...(options.image !== undefined ? { image: renderTemplate(options.image) } : {}),
    ...(options.collapseId !== undefined ? { collapseId: renderTemplate(options.collapseId) } : {}),
  };
}

/** A template as the admin API shows it: the options it was given, beside its texts. */
export function templateView(row: Pick<TemplateRow, 'slug' | 'title' | 'body' | 'placeholders' | 'options' | 'localizations'>): TemplateView {
  const view: TemplateView = { slug: row.slug, title: row.title, body: row.body, placeholders: JSON.parse(row.placeholders) as string[], ...parseOptions(row.options) };
  if (row.localizations) view.localizations = parseLocalizations(row.localizations);
  return view;
}

export type ReleasesService = ReturnType<typeof releasesService>;
