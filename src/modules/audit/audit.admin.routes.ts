import { t } from 'elysia';
import { errors, Int, PageQuery, withDetail } from '../../http/schemas';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { AUDIT_ACTIONS } from './audit.actions';

const AuditEntry = t.Object({
  id: Int(),
  at: t.String({ format: 'date-time' }),
  actor: t.String({ description: '`admin-token:<8 hex>` (start of the SHA-256 of the token used), `console:<8 hex>` (of the session), or `cli`.' }),
  address: t.String({ description: "The client's address; `local` for the command line." }),
  action: t.String({ description: `One of ${AUDIT_ACTIONS.join(', ')}.` }),
  appId: t.Union([t.String(), t.Null()]),
  target: t.String({ description: 'What was changed, e.g. `apps/demo/releases/3`.' }),
  summary: t.Record(t.String(), t.Unknown(), { description: 'The non-secret fields of the change (never a secret value).' }),
});

/** The query's date-times were checked by their schema's format. */
const time = (value: string | undefined): number | undefined => (value === undefined ? undefined : Date.parse(value));

/** `GET /api/admin/audit`: who changed what, newest first. */
export function auditAdminRoutes(services: Services) {
  return adminGroup(services, 'Admin: audit log').get(
    '/audit',
    ({ query }) =>
      services.audit.list(
        { appId: query.appId, action: query.action, actor: query.actor, since: time(query.since), until: time(query.until) },
        query.limit ?? 50,
        query.offset ?? 0,
      ),
    {
      query: t.Object({
        ...PageQuery,
        appId: t.Optional(t.String({ description: 'Only changes of this app.' })),
        action: t.Optional(t.String({ description: 'Only this action, e.g. `secret.rotate`.' })),
        actor: t.Optional(t.String({ description: 'Only this actor, e.g. `console:1a2b3c4d`.' })),
        since: t.Optional(withDetail(t.String({ format: 'date-time', description: 'From this time (inclusive).' }), 'since must be an ISO 8601 date-time')),
        until: t.Optional(withDetail(t.String({ format: 'date-time', description: 'Before this time (exclusive).' }), 'until must be an ISO 8601 date-time')),
      }),
      response: { 200: t.Object({ entries: t.Array(AuditEntry), total: Int() }), ...errors(400, 401) },
      detail: {
        summary: 'List the audit log',
        description:
          'Every change made through the admin API, the console or the command line (apps, secrets rotated, credentials, plans, releases, templates, testers, devices, console sign-ins, admin token resets), newest first.',
      },
    },
  );
}
