import { Elysia, t } from 'elysia';
import { Int, errors } from '../../http/schemas';
import type { Services } from '../../services';
import { AudienceBody, audienceFilter } from '../devices/audience';
import { DeviceRecord } from '../devices/devices.view';
import { MAX_TAG_VALUE, MAX_TAGS, refuseProtoKey } from '../devices/tags';
import { FREQUENCY_CAP_DOC, FrequencyCapBody, QUIET_HOURS_DOC, QuietHoursBody } from '../../http/delivery-limits.schemas';

const Params = t.Object({
  appId: t.String({ description: 'The app identifier.' }),
  endUserId: t.String({ description: 'The end user, as devices register them (`endUserId`, at most 256 characters).' }),
});
const TAG_RULES = `Keys: 1 to 64 letters, digits, \`_\`, \`-\`, \`.\` or \`:\`, not \`__proto__\`; values: at most ${MAX_TAG_VALUE} characters; at most ${MAX_TAGS} tags per end user.`;
const Tags = t.Record(t.String(), t.String(), { description: `The end user's tags. ${TAG_RULES}` });
const OWN = 'The end user’s own, instead of the app’s (`PATCH /api/admin/apps/{appId}`); `null`: the app’s apply to them. In a PUT or PATCH: a value sets it, `null` removes it, absent leaves it.';
const OwnQuietHours = t.Union([QuietHoursBody, t.Null()], { description: `${QUIET_HOURS_DOC} ${OWN}` });
const OwnFrequencyCap = t.Union([FrequencyCapBody, t.Null()], { description: `${FREQUENCY_CAP_DOC} ${OWN}` });
const EndUser = t.Object({
  endUserId: t.String(),
  tags: Tags,
  quietHours: OwnQuietHours,
  frequencyCap: OwnFrequencyCap,
  devices: t.Array(DeviceRecord, { description: 'Their devices, as the device API shows them, newest first.' }),
});
const Erased = t.Object({
  endUserId: t.String(),
  removed: t.Object(
    {
      devices: Int({ description: 'Devices, with every token of theirs.' }),
      tokens: Int({ description: 'Tokens of those devices (device, push-to-start, Live Activity tokens).' }),
      tags: Int(),
      liveActivities: Int({ description: 'Their Live Activities; the Active ones were ended first, with the end push.' }),
      tester: t.Boolean({ description: 'Whether they were marked as a tester.' }),
    },
    { description: 'What was removed.' },
  ),
});

/** End users as a resource of the public API (issue 38): tags, what they have, erasure. */
export function usersRoutes(services: Services) {
  const { auth, users, devices } = services;
  const appId = (request: Request) => auth.appOf(request).id;
  const security = [{ serviceKey: [] }];
  return new Elysia({ detail: { tags: ['End users'] } })
    .get('/api/apps/:appId/users/:endUserId', ({ request, params }) => users.get(appId(request), params.endUserId), {
      transform: auth.requireKey,
      params: Params,
      response: { 200: EndUser, ...errors(401, 404, 429) },
      detail: { summary: 'Get an end user', description: 'Their tags and devices. 404 `end user not found` for an end user the app does not know.', security },
    })
    .put('/api/apps/:appId/users/:endUserId', ({ request, params, body }) => users.replace(appId(request), params.endUserId, body.tags, body, body), {
      transform: async (c) => (await auth.requireKey(c), refuseProtoKey(c.body)),
      params: Params,
      body: t.Object(
        {
          endUserId: t.Optional(t.String({ description: 'Read-only: accepted when it is the path’s (the body GET answered can be sent back).' })),
          tags: t.Optional(t.Record(t.String(), t.String(), { description: `The end user's tags, replaced whole; absent: kept. ${TAG_RULES}` })),
          quietHours: t.Optional(OwnQuietHours),
          frequencyCap: t.Optional(OwnFrequencyCap),
          devices: t.Optional(t.Array(t.Unknown(), { description: 'Read-only: accepted when it lists the end user’s devices (by `id`) as GET does.' })),
        },
        { additionalProperties: false },
      ),
      response: { 200: EndUser, ...errors(400, 401, 413, 429) },
      detail: {
        summary: "Replace an end user's tags, set their quiet hours and frequency cap",
        description: `Replaces the whole set of tags when \`tags\` is given (the end user is created when absent). ${TAG_RULES} A breach answers 400 naming it. Sends, starts and broadcast subscribers reach tagged users through \`audience\`. \`quietHours\` and \`frequencyCap\`: the end user's own (a malformed one: 400 naming the field).`,
        security,
      },
    })
    .patch('/api/apps/:appId/users/:endUserId', ({ request, params, body }) => users.merge(appId(request), params.endUserId, body.tags, body), {
      transform: async (c) => (await auth.requireKey(c), refuseProtoKey(c.body)),
      params: Params,
      body: t.Object(
        {
          tags: t.Optional(t.Record(t.String(), t.Union([t.String(), t.Null()]), { description: 'Keys to set; a value `null` removes the key.' })),
          quietHours: t.Optional(OwnQuietHours),
          frequencyCap: t.Optional(OwnFrequencyCap),
        },
        { additionalProperties: false },
      ),
      response: { 200: EndUser, ...errors(400, 401, 413, 429) },
      detail: {
        summary: "Merge into an end user's tags, quiet hours and frequency cap",
        description: `Sets the given tag keys, removes those set to \`null\`, keeps the others. ${TAG_RULES} \`quietHours\` and \`frequencyCap\`: the end user's own (a malformed one: 400 naming the field).`,
        security,
      },
    })
    .delete('/api/apps/:appId/users/:endUserId', ({ request, params }) => users.erase(appId(request), params.endUserId), {
      transform: auth.requireKey,
      params: Params,
      response: { 200: Erased, ...errors(401, 404, 429) },
      detail: {
        summary: 'Erase an end user',
        description:
          'Removes everything Islet keeps about the end user (a GDPR erasure): their Active Live Activities are ended first, with the end push, then every device and token, ' +
          'the tester flag, tags and their Live Activities. A device whose end push is still waiting is kept without the end user until it went, then removed. ' +
          'Deliveries of messages already sent keep their counts, without the device. Later sends do not reach them. Answers what was removed.',
        security,
      },
    })
    .post('/api/apps/:appId/notifications/audience-count', ({ request, body }) => devices.countAudience(appId(request), audienceFilter(body.audience)), {
      transform: auth.requireKey,
      params: t.Object({ appId: t.String({ description: 'The app identifier.' }) }),
      body: t.Object({ audience: AudienceBody }, { additionalProperties: false }),
      response: {
        200: t.Object({
          devices: Int({ description: 'Valid devices the audience reaches: the `messageCount` a send to it would answer now.' }),
          users: Int({ description: 'End users those devices belong to.' }),
        }),
        ...errors(400, 401, 413, 429),
      },
      detail: {
        tags: ['Notifications'],
        summary: 'Count an audience',
        description: 'How many devices and end users a send with this `audience` reaches now (nothing is sent).',
        security,
      },
    });
}
