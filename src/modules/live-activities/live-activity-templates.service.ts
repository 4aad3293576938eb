import type { AppContext } from '../../context';
import type { Tx } from '../../db/store';
import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import { definitionProblem, isBuiltInSlug, MAX_TEMPLATES, normalized, replacementProblem, type CustomTemplateDefinition } from './custom-templates';
import type { TemplateRow } from './live-activity-templates.types';
import { definitionOf } from './resolved-template';
import { liveActivityTemplatesRepository } from './live-activity-templates.repository';

/** A definition without its slug: the body of a replace. */
export type TemplateBody = Omit<CustomTemplateDefinition, 'slug'>;

const notFound = () => new HttpError(404, 'live activity template not found');
const builtIn = (slug: string) => new HttpError(409, `${slug} is a built-in template and cannot be replaced`);

/**
 * App-defined Live Activity templates (issue 39): create, list, get, replace, delete. A built-in
 * slug answers 409; a template Active activities use cannot be deleted (409) and is replaced only
 * by one that adds optional fields (409 naming the field otherwise).
 */
export function liveActivityTemplatesService(ctx: AppContext) {
  const store = ctx.db;

  const view = (row: TemplateRow) => ({
    ...definitionOf(row),
    source: row.source,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  });

  /** The definition in its stored form, or 409 (a built-in slug) or 400 (a problem of its names or fields). */
  const check = (given: CustomTemplateDefinition): CustomTemplateDefinition => {
    if (isBuiltInSlug(given.slug)) throw builtIn(given.slug);
    const def = normalized(given);
    const problem = definitionProblem(def);
    if (problem) throw new HttpError(400, problem);
    return def;
  };

  const rowOf = (appId: string, def: CustomTemplateDefinition, source: TemplateRow['source'], createdAt: number, now: number): TemplateRow => ({
    appId,
    slug: def.slug,
    attributesType: def.attributesType,
    attributes: JSON.stringify(def.attributes),
    contentState: JSON.stringify(def.contentState),
    source,
    createdAt,
    updatedAt: now,
  });

  /** Replaces `current` with `def` in `tx` when the activities using it allow (see replacementProblem). */
  const replaceIn = async (tx: Tx, appId: string, current: TemplateRow, def: CustomTemplateDefinition, source: TemplateRow['source']) => {
    if ((await liveActivityTemplatesRepository(tx).activeCount(appId, def.slug)) > 0) {
      const problem = replacementProblem(definitionOf(current), def);
      if (problem) throw new HttpError(409, problem);
    }
    const row = rowOf(appId, def, source, current.createdAt, ctx.clock.now());
    await liveActivityTemplatesRepository(tx).put(row);
    return row;
  };

  return {
    async list(appId: string) {
      return (await liveActivityTemplatesRepository(store.sql).list(appId)).map(view);
    },

    async get(appId: string, slug: string) {
      const row = await liveActivityTemplatesRepository(store.sql).find(appId, slug);
      if (!row) throw notFound();
      return view(row);
    },

    /** A new template; 409 when the slug is a built-in's or the app already has it. */
    async create(appId: string, given: CustomTemplateDefinition) {
      const def = check(given);
      return view(
        await store.write(async (tx) => {
          if ((await liveActivityTemplatesRepository(tx).count(appId)) >= MAX_TEMPLATES) throw new HttpError(409, `an app has at most ${MAX_TEMPLATES} live activity templates`);
          const now = ctx.clock.now();
          const row = rowOf(appId, def, 'api', now, now);
          if (!(await liveActivityTemplatesRepository(tx).insert(row))) throw new HttpError(409, `live activity template ${def.slug} already exists`);
          return row;
        }),
      );
    },

    /** Replaces an existing template (404 when there is none). */
    async replace(appId: string, slug: string, body: TemplateBody) {
      const def = check({ ...body, slug });
      return view(
        await store.write(async (tx) => {
          const current = await liveActivityTemplatesRepository(tx).findForWrite(appId, slug);
          if (!current) throw notFound();
          return replaceIn(tx, appId, current, def, 'api');
        }),
      );
    },

    /** Deletes a template no Active activity uses. */
    async remove(appId: string, slug: string): Promise<void> {
      if (isBuiltInSlug(slug)) throw new HttpError(409, `${slug} is a built-in template and cannot be deleted`);
      await store.write(async (tx) => {
        if (!(await liveActivityTemplatesRepository(tx).findForWrite(appId, slug))) throw notFound();
        const active = await liveActivityTemplatesRepository(tx).activeCount(appId, slug);
        if (active > 0) throw new HttpError(409, `live activity template ${slug} is in use by ${active} active ${active === 1 ? 'activity' : 'activities'}`);
        if (!(await liveActivityTemplatesRepository(tx).remove(appId, slug))) throw notFound();
      });
    },

    /**
     * The templates the configuration declares for an app, created or made to match (the same
     * rules as replace while activities use them). Throws the first problem.
     */
    async seed(appId: string, defs: readonly CustomTemplateDefinition[]): Promise<void> {
      for (const given of defs) {
        const def = check(given);
        await store.write(async (tx) => {
          const current = await liveActivityTemplatesRepository(tx).findForWrite(appId, def.slug);
          if (!current) {
            const now = ctx.clock.now();
            await liveActivityTemplatesRepository(tx).put(rowOf(appId, def, 'config', now, now));
          } else if (JSON.stringify(definitionOf(current)) !== JSON.stringify(def) || current.source !== 'config') {
            await replaceIn(tx, appId, current, def, 'config');
          }
        });
      }
    },
  };
}

export type LiveActivityTemplatesService = ReturnType<typeof liveActivityTemplatesService>;
