import type { AppContext } from '../../context';
import type { AudienceFilter } from '../devices/devices.types';
import { devicesRepository } from '../devices/devices.repository';
import { tokensRepository } from '../tokens/tokens.repository';
import { widgetReloadsRepository } from './widget-reloads.repository';

/** What WidgetKit reloads: the app's widgets (iOS 26+ widget push token) or its controls (iOS 18+ control push token). */
export type ReloadTarget = 'widgets' | 'controls';

/** Who a reload reaches: end users by id, or an audience (`{}`: every connected end user). */
export interface ReloadInput {
  endUserIds?: string[];
  audience?: AudienceFilter;
}

export interface ReloadResult {
  /** Tokens reached: the active widget token, or control tokens (one per control), of the targets' iOS devices. */
  tokenCount: number;
  /** Of them, those that already had a reload waiting: it stands for this one too (one push). */
  coalesced: number;
}

/**
 * WidgetKit reloads (issue 47): `{"aps":{"content-changed":true}}` to each targeted device's widget
 * or control push token, in one unit of work. Coalesced per token: a token whose reload has not gone
 * yet gets no second one (WidgetKit reloads from the app's current data, so one push says it all).
 * A provider's refusal of a token (BadDeviceToken, Unregistered) retires that token only: the
 * outcome handling of every delivery.
 * @example await widgetsService(ctx).reload('demo', 'widgets', { endUserIds: ['user-1'] }) // { tokenCount: 1, coalesced: 0 }
 */
export function widgetsService(ctx: AppContext) {
  return {
    reload(appId: string, target: ReloadTarget, input: ReloadInput): Promise<ReloadResult> {
      return ctx.db.write(async (tx) => {
        const now = ctx.clock.now();
        const devices = (await devicesRepository(tx).targets(appId, input)).filter((d) => d.platform === 'ios');
        const kind = target === 'widgets' ? 'apns_widget' : 'apns_control';
        const tokens = devices.length === 0 ? [] : await tokensRepository(tx).activeOfKind(devices.map((d) => d.id), kind);
        const waiting = await widgetReloadsRepository(tx).waiting(tokens.map((t) => t.id), `${target}_reload`);
        const fresh = tokens.filter((t) => !waiting.has(t.id));
        if (fresh.length > 0) await ctx.outbox.enqueue(tx, { appId, content: { type: 'reload', target }, targets: fresh.map((t) => ({ deviceId: t.deviceId, tokenId: t.id })), now });
        return { tokenCount: tokens.length, coalesced: tokens.length - fresh.length };
      });
    },
  };
}

export type WidgetsService = ReturnType<typeof widgetsService>;
