import { echoed, HttpError } from '../../lib/errors';
import { TEMPLATE_SLUGS } from './templates';

/**
 * The spec's 400 `invalid template slug`, its detail word for word, with the slug as sent and the
 * eight valid ones (and the app's own templates', `appSlugs`) as extension members (RFC 9457), so that `progres-bar` is seen at once.
 * @example invalidTemplateSlug('progres-bar').toProblem() // { …, detail: 'invalid template slug', templateSlug: 'progres-bar', validSlugs: ['status-tracker', …] }
 */
export function invalidTemplateSlug(slug: string, appSlugs: readonly string[] = []): HttpError {
  return new HttpError(400, 'invalid template slug', {}, { templateSlug: echoed(slug), validSlugs: [...TEMPLATE_SLUGS, ...appSlugs] });
}
