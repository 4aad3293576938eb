import type { AppContext } from '../../../context';
import type { Tx } from '../../../db/store';
import type { CredentialsChanged } from '../../apps/apps.service';
import { channelHealth } from './channel-health';
import { notifyQueued } from '../outbox/outbox';

/**
 * An app's credentials for a provider changed or were removed (an operator fixed a wrong endpoint,
 * say): what was held for that provider's down channels goes again now, routed by the new
 * credentials, and those channels' health is forgotten; the old endpoint may never answer again,
 * and the new one is judged by its own answers. Runs in the process that changes the credentials,
 * which is the one whose delivery worker keeps channel health (serve); in any other the release alone
 * is what counts. Runs in the transaction `tx` that changes them. Returns how many deliveries were released.
 */
export async function channelCredentialsChanged(ctx: AppContext, tx: Tx, appId: string, provider: 'apns' | 'fcm'): Promise<number> {
  const released = await tx.channelHolds.releaseProvider(appId, provider, ctx.clock.now());
  channelHealth(ctx).forget(appId, provider);
  if (released > 0) notifyQueued(ctx.db);
  return released;
}

/** channelCredentialsChanged as the apps service takes it. */
export const credentialsReset =
  (ctx: AppContext): CredentialsChanged =>
  (tx, appId, provider) =>
    channelCredentialsChanged(ctx, tx, appId, provider);
