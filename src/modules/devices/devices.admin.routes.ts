import { t } from 'elysia';
import { AppParams, Int, PageQuery, Success, errors } from '../../http/schemas';
import { isoTime } from '../../lib/clock';
import { HttpError } from '../../lib/errors';
import type { Services } from '../../services';
import { adminGroup } from '../admin/admin.guard';
import { DeviceBody } from './devices.routes';
import { DeviceRecord, deviceView } from './devices.view';
import { registrationInput } from './device-registration';
import { withTypedPushToStart } from './typed-push-to-start';

/** Admin API of an app's end users and devices (the console's "add a simulated device" uses POST). */
export function devicesAdminRoutes(services: Services) {
  const { apps, devices, clock } = services;
  return adminGroup(services, 'Admin: end users and devices')
    .get(
      '/apps/:appId/end-users',
      async ({ params, query }) => {
        await apps.get(params.appId);
        const { rows, total } = await devices.listEndUsers(params.appId, query.limit ?? 50, query.offset ?? 0);
        return {
          endUsers: rows.map((u) => ({ id: u.id, tester: u.tester, devices: u.devices, createdAt: isoTime(u.createdAt), lastSeenAt: isoTime(u.lastSeenAt) })),
          total,
        };
      },
      { params: AppParams, query: t.Object(PageQuery), response: { ...errors(400, 401, 404) }, detail: { summary: 'List end users' } },
    )
    .patch(
      '/apps/:appId/end-users/:endUserId',
      async ({ params, body }) => {
        await apps.get(params.appId);
        if (!(await devices.setTester(params.appId, params.endUserId, body.tester))) throw new HttpError(404, 'end user not found');
        return { id: params.endUserId, tester: body.tester };
      },
      {
        params: t.Object({ appId: t.String(), endUserId: t.String() }),
        body: t.Object({ tester: t.Boolean() }, { additionalProperties: false }),
        response: { ...errors(400, 401, 404) },
        detail: { summary: 'Mark or unmark an end user as a tester' },
      },
    )
    .get(
      '/apps/:appId/audience',
      async ({ params, query }) => {
        await apps.get(params.appId);
        return devices.audience(params.appId, query.testersOnly ?? false);
      },
      {
        params: AppParams,
        query: t.Object({ testersOnly: t.Optional(t.Boolean({ description: 'Count only the devices of end users marked as testers (a test send).' })) }),
        response: {
          200: t.Object({
            endUsers: Int({ description: 'End users with at least one valid device.' }),
            devices: Int({ description: 'Valid devices: what a send to everyone goes to.' }),
            ios: Int(),
            android: Int(),
            web: Int({ description: 'Browsers with a Web Push subscription.' }),
            iosStartable: Int({ description: 'iPhones with a push-to-start token: a Live Activity start reaches these and every Android and web device.' }),
          }),
          ...errors(400, 401, 404),
        },
        detail: { summary: 'Count who a send to everyone reaches', description: 'What the console names before a send, a start or a promotion to Live.' },
      },
    )
    .get(
      '/apps/:appId/devices',
      async ({ params, query }) => {
        await apps.get(params.appId);
        const { rows, total } = await devices.list(params.appId, { endUserId: query.endUserId }, query.limit ?? 50, query.offset ?? 0);
        return { devices: rows.map(deviceView), total };
      },
      {
        params: AppParams,
        query: t.Object({ ...PageQuery, endUserId: t.Optional(t.String()) }),
        response: { 200: t.Object({ devices: t.Array(DeviceRecord), total: Int() }), ...errors(400, 401, 404) },
        detail: { summary: 'List devices' },
      },
    )
    .post(
      '/apps/:appId/devices',
      async ({ params, body }) => {
        await apps.get(params.appId);
        const input = await registrationInput(services.ctx, params.appId, body);
        return { device: deviceView((await devices.upsert(params.appId, withTypedPushToStart(input), clock.now())).device) };
      },
      {
        params: AppParams,
        body: DeviceBody,
        response: { 200: t.Object({ device: DeviceRecord }), ...errors(400, 401, 404) },
        detail: { summary: 'Register a device as the admin (e.g. a simulated one)' },
      },
    )
    .delete(
      '/apps/:appId/devices/:deviceId',
      async ({ params }) => {
        await apps.get(params.appId);
        if (!(await devices.remove(params.appId, params.deviceId))) throw new HttpError(404, 'device not found');
        return { success: true as const };
      },
      {
        params: t.Object({ appId: t.String(), deviceId: t.String() }),
        response: { 200: Success, ...errors(401, 404) },
        detail: { summary: 'Remove a device', description: 'Its queued deliveries are dropped when the worker reaches them.' },
      },
    );
}
