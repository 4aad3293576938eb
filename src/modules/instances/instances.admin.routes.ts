import { t } from 'elysia';
import { errors } from '../../http/schemas';
import { isoTime } from '../../lib/clock';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';

const Instance = t.Object({
  id: t.String({ description: 'New at every start (`<host>-<pid>-<random>`); the `islet_instance` label of its metrics.', examples: ['web-1-4242-a1b2c3'] }),
  host: t.String({ description: 'The host name it runs on.' }),
  version: t.String({ description: 'The Islet version it runs.' }),
  startedAt: t.String({ format: 'date-time' }),
  lastSeen: t.String({ format: 'date-time', description: 'Its last heartbeat.' }),
  leader: t.Boolean({ description: 'Whether it runs the scheduler (quota, iOS expiry, retention, webhooks), as of its last heartbeat.' }),
});

/** `GET /api/admin/instances`: the Islet processes serving this database. */
export function instancesAdminRoutes(services: Services) {
  const { instances } = services.ctx.coordination;
  return adminGroup(services, 'Admin: instances').get(
    '/instances',
    async () => ({
      instances: (await instances.live()).map((i) => ({ ...i, startedAt: isoTime(i.startedAt), lastSeen: isoTime(i.lastSeen) })),
    }),
    {
      response: { 200: t.Object({ instances: t.Array(Instance) }), ...errors(401) },
      detail: {
        summary: 'List the live instances',
        description:
          'The instances serving this database whose lease has not lapsed (an instance that stopped or died leaves the list within its lease), newest first, then by id. ' +
          'On SQLite, and on PostgreSQL with one instance, the list holds the one answering.',
      },
    },
  );
}
