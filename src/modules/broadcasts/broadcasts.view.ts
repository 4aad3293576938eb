import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { isoTime } from '../../lib/clock';
import type { BroadcastRow } from './broadcasts.types';

export const BroadcastRecord = t.Object({
  id: t.String({ description: 'Broadcast identifier (`bc_…`).' }),
  appId: t.String(),
  templateSlug: t.String(),
  state: t.Union([t.Literal('Active'), t.Literal('Ended')]),
  storagePolicy: Type.Integer({
    minimum: 0,
    maximum: 1, description: 'Apple’s message-storage-policy: 0 No Message Stored (frequent updates), 1 Most Recent Message Stored.' }),
  channel: t.Object(
    {
      id: t.Optional(t.String({ description: 'The APNs channel id an iOS 18 app passes to `pushType: .channel(id)`; absent while Apple makes it.' })),
      environment: t.Union([t.Literal('production'), t.Literal('sandbox'), t.Literal('simulator')], {
        description: 'The APNs environment of the channel (ids differ between them); `simulator`: the app has no APNs credentials, the id is simulated.',
      }),
      state: t.Union([t.Literal('creating'), t.Literal('open'), t.Literal('deleted'), t.Literal('failed')]),
      reason: t.Optional(t.String({ description: 'Why the channel failed or the broadcast waits.' })),
    },
    { description: 'The APNs broadcast channel.' },
  ),
  topic: t.String({ description: 'The FCM topic an Android app subscribes to (`FirebaseMessaging.subscribeToTopic`).' }),
  updatesSent: Type.Integer({ description: 'Updates and ends that reached the providers.' }),
  subscribersStarted: Type.Integer({ description: 'Devices the API queued a start to (`POST …/subscribers`); apps that subscribe themselves are not counted.' }),
  endReason: t.Optional(t.String({ description: '`api`, or why Islet ended it (`channel-gone: ChannelNotRegistered`, `channel-limit`).' })),
  startedAt: t.String({ format: 'date-time' }),
  endedAt: t.Optional(t.String({ format: 'date-time' })),
});

export type BroadcastView = typeof BroadcastRecord.static;

/** A broadcast as the API shows it. */
export function broadcastView(row: BroadcastRow): BroadcastView {
  const reason = row.heldReason ?? row.channelReason;
  return {
    id: row.id,
    appId: row.appId,
    templateSlug: row.templateSlug,
    state: row.state,
    storagePolicy: row.storagePolicy,
    channel: {
      ...(row.channelId ? { id: row.channelId } : {}),
      environment: row.environment,
      state: row.channelState,
      ...(reason ? { reason } : {}),
    },
    topic: row.topic,
    updatesSent: row.updatesSent,
    subscribersStarted: row.subscribersStarted,
    ...(row.endReason ? { endReason: row.endReason } : {}),
    startedAt: isoTime(row.startedAt),
    ...(row.endedAt !== null ? { endedAt: isoTime(row.endedAt) } : {}),
  };
}
