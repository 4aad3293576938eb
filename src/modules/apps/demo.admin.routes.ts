import { t } from 'elysia';
import { Int, errors } from '../../http/schemas';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { createDemo } from './demo.service';

const DemoAnswer = t.Object({
  app: t.Object({ id: t.String({ examples: ['demo'] }), name: t.String() }, { additionalProperties: true }),
  appSecret: t.String({ description: 'The App Secret, shown once (also in the console under Credentials).' }),
  signingSecret: t.String(),
  endUsers: t.Array(t.String(), { examples: [['demo-user', 'demo-friend']] }),
  devices: Int(),
  releaseVersion: Int(),
  activityId: t.Optional(t.String({ description: 'The Live Activity the demo started for demo-user.' })),
  notifications: Int({ description: 'Welcome notifications queued.' }),
});

/** The console's "Create the demo app" button and `islet demo`, through the same service. */
export function demoAdminRoutes(services: Services) {
  return adminGroup(services, 'Admin: apps').post(
    '/demo',
    async ({ set }) => {
      const { appId, ...summary } = await createDemo(services);
      set.status = 201;
      return { app: services.apps.view(await services.apps.get(appId)), ...summary };
    },
    {
      response: { 201: DemoAnswer, ...errors(401, 409, 422) },
      detail: {
        summary: 'Create the demo app',
        description:
          'App `demo` with end users `demo-user` (a tester, with a simulated iPhone and Android phone) and `demo-friend`, a Live release 1 ' +
          '(templates `welcome` and `order-shipped`), a running Live Activity and a welcome notification, all delivered to the simulator. ' +
          'The examples of this document use these ids. 409 when an app `demo` exists.',
      },
    },
  );
}
