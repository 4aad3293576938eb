import type { AppContext } from '../../context';
import type { Sql } from '../../db/sql/sql';
import { HttpError } from '../../lib/errors';
import type { AppRow } from '../apps/apps.types';
import { budgetOf } from '../apps/live-activity-budget';
import { messageKind } from '../delivery/message-content';
import type { DeliveryTarget } from '../delivery/outbox/outbox';
import type { NewDelivery } from '../delivery/outbox/outbox.types';
import type { InstanceTarget } from './instances.types';
import { activityContent, type EventOptions } from './live-activities.content';
import { followUpTargets, parsed } from './live-activities.delivery';
import { timestampAfter, type ActivityRow } from './live-activities.types';
import { optimisticUpdateRepository } from './optimistic-update.repository';
import { decideGroups } from './priority-budget/auto-priority';
import { withPriority } from './priority-budget/with-priority';
import { contentContext, requireValidState, resolvedFrom, resolveTemplate, type ResolvedTemplate } from './resolved-template';
import { requireDeliverable } from './start-checks';

export const notFound = () => new HttpError(404, 'live activity not found');
export const notActive = () => new HttpError(409, 'live activity is not active');

/** What an update decides from: the activity and its live instances as read, the app's budget. */
export interface UpdateBasis {
  row: ActivityRow;
  instances: InstanceTarget[];
  budget: Pick<AppRow, 'laPriority10PerHour' | 'laFrequentPriority10PerHour'> | undefined;
  /** Whether the app has APNs credentials (read only when an iOS instance has no update token yet). */
  apnsConfigured: () => Promise<boolean>;
  /** The activity's template when it was read with it; absent: read in `r`. */
  template?: ResolvedTemplate;
}

/**
 * An update of the activity `basis.row` to `contentState`, decided from what was read (the template
 * read in `r` when it is the app's own): checks (409 unless Active, 400 for an invalid state or a
 * payload too large), its APNs timestamp (after the row's `lastTimestamp`), its content, and its
 * targets in priority groups with the instances' sliding hours to store. Nothing is written.
 */
export async function planUpdate(ctx: AppContext, r: Sql, basis: UpdateBasis, contentState: Record<string, unknown>, options: EventOptions) {
  const { row, instances } = basis;
  if (row.state !== 'Active') throw notActive();
  const activity = parsed(row);
  const template = basis.template ?? (await resolveTemplate(r, row.appId, row.templateSlug));
  requireValidState(template, contentState, activity.attributes);
  const now = ctx.clock.now();
  // From the lastTimestamp read: the write that records it goes through only while that is still the
  // row's (a row lock, or the optimistic write's condition), so timestamps are strictly increasing.
  const apnsTimestamp = timestampAfter(row.lastTimestamp, now);
  const content = activityContent('update', { ...activity, contentState }, { now, apnsTimestamp, options, custom: contentContext(template).custom });
  // Rendered once: the size check's APNs body is the one the worker sends (messages.sent_body).
  const rendered = requireDeliverable(content);
  const targets = await followUpTargets(instances, basis.apnsConfigured);
  const push = { activityId: row.id, event: 'update' as const, alert: options.alert !== undefined, requested: options.priority ?? 'auto', now, budget: async () => budgetOf(basis.budget) };
  const { groups, spends } = await decideGroups(push, instances, targets);
  return { now, apnsTimestamp, content, rendered, groups, spends };
}

/** Optimistic writes tried before an update waits for the activity's row lock instead. */
const OPTIMISTIC_ATTEMPTS = 3;

/**
 * An update on PostgreSQL in two statements (issue 49): one read without a lock, then one write
 * (optimistic-update.repository.ts) that goes through only while the activity is as read, its row
 * version unchanged. Exact like the locked unit of work: every write that changes what an update
 * decides from (an update, an end, a token or instance report) changes the row version, so two
 * updates decided from one read never both write, and the loser reads again. False when it lost
 * OPTIMISTIC_ATTEMPTS times (a hot activity): the caller then runs the locked unit of work, which
 * waits its turn rather than failing.
 */
export async function updateInOneWrite(ctx: AppContext, appId: string, id: string, contentState: Record<string, unknown>, options: EventOptions): Promise<boolean> {
  const repo = optimisticUpdateRepository(ctx.db.sql);
  for (let attempt = 1; attempt <= OPTIMISTIC_ATTEMPTS; attempt++) {
    const read = await repo.read(appId, id);
    if (!read) throw notFound();
    const basis = { ...read, apnsConfigured: async () => read.apnsConfigured, template: resolvedFrom(read.row.templateSlug, read.template) };
    const plan = await planUpdate(ctx, ctx.db.sql, basis, contentState, options);
    // Deliveries settled at queueing (failed: a webhook with the message's id) go through Outbox.enqueue: no follow-up has them today.
    if (plan.groups.some((g) => g.targets.some((t) => t.status === 'failed' || t.status === 'dropped'))) return false;
    const messages = plan.groups.map((g) => withPriority(plan.content, g.priority));
    const { written, superseded } = await repo.write({
      appId,
      activityId: id,
      lastTimestamp: read.row.lastTimestamp,
      version: read.version,
      contentState: JSON.stringify(contentState),
      apnsTimestamp: plan.apnsTimestamp,
      now: plan.now,
      kind: messageKind(plan.content),
      templateSlug: plan.content.templateSlug,
      sentBody: plan.rendered.apnsBody,
      messages: messages.map((m) => JSON.stringify(m)),
      deliveries: plan.groups.flatMap((g, i) => g.targets.map((t) => ({ ...deliveryOf(t), message: i + 1 }))),
      spends: plan.spends,
    });
    if (!written) continue;
    ctx.outbox.queuedFollowUp(appId, messages.map((content, i) => ({ content, count: plan.groups[i]!.targets.length })), superseded);
    return true;
  }
  return false;
}

/** A follow-up's delivery row, as Outbox.enqueue writes it (held without a kind waits for the activity's token). */
function deliveryOf(t: DeliveryTarget): NewDelivery {
  const status = t.status ?? 'pending';
  return { deviceId: t.deviceId, tokenId: t.tokenId ?? null, status, holdKind: status === 'held' ? (t.holdKind ?? 'token') : null, reason: t.reason ?? null };
}
