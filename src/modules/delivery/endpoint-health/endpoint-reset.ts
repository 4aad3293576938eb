import type { AppContext } from '../../../context';
import type { Tx } from '../../../db/store';
import type { CredentialsChanged } from '../../apps/apps.service';
import { endpointHealth } from './endpoint-health';
import { notifyQueued } from '../outbox/outbox';

/**
 * An app's credentials for a provider changed or were removed (an operator fixed a wrong endpoint,
 * say): what was held for that provider's down endpoints goes again now, routed by the new
 * credentials, and those endpoints' health is forgotten; the old endpoint may never answer again,
 * and the new one is judged by its own answers. Runs in the process that changes the credentials,
 * which is the one whose delivery worker keeps endpoint health (serve); in any other the release alone
 * is what counts. Runs in the transaction `tx` that changes them. Returns how many deliveries were released.
 */
export async function endpointCredentialsChanged(ctx: AppContext, tx: Tx, appId: string, provider: 'apns' | 'fcm'): Promise<number> {
  const released = await tx.endpointHolds.releaseProvider(appId, provider, ctx.clock.now());
  endpointHealth(ctx).forget(appId, provider);
  if (released > 0) notifyQueued(ctx.db);
  return released;
}

/** endpointCredentialsChanged as the apps service takes it. */
export const credentialsReset =
  (ctx: AppContext): CredentialsChanged =>
  (tx, appId, provider) =>
    endpointCredentialsChanged(ctx, tx, appId, provider);
