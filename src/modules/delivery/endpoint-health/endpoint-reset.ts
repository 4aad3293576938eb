import type { AppContext } from '../../../context';
import type { Tx } from '../../../db/store';
import type { CredentialsChanged } from '../../apps/apps.service';
import { downHold } from '../holds/hold-kind';
import { endpointHoldsRepository } from './endpoint-holds.repository';

/**
 * An app's credentials for a provider changed or were removed (an operator fixed a wrong endpoint,
 * say): what was held for that provider's down endpoints goes again now, routed by the new
 * credentials, and those endpoints' health is forgotten; the old endpoint may never answer again,
 * and the new one is judged by its own answers. Runs in the process that changes the credentials,
 * and, after the commit, in every delivery worker of the installation (a wake-up 'credentials-changed',
 * `forgetCredentials`). Runs in the transaction `tx` that changes them. Returns how many deliveries were released.
 */
export async function endpointCredentialsChanged(ctx: AppContext, tx: Tx, appId: string, provider: 'apns' | 'fcm'): Promise<number> {
  const released = await endpointHoldsRepository(tx).releaseProvider(appId, downHold(provider), ctx.clock.now());
  ctx.endpointHealth.forget(appId, provider);
  if (released > 0) ctx.outbox.notifyQueued();
  // The other instances' delivery workers forget the same (forgetCredentials).
  ctx.db.afterCommit(() => ctx.coordination.wakeUps.notify('credentials-changed', credentialsSubject(appId, provider)));
  return released;
}

/** endpointCredentialsChanged as the apps service takes it. */
export const credentialsReset =
  (ctx: AppContext): CredentialsChanged =>
  (tx, appId, provider) =>
    endpointCredentialsChanged(ctx, tx, appId, provider);

/** The subject of a 'credentials-changed' wake-up. */
export const credentialsSubject = (appId: string, provider: 'apns' | 'fcm') => `${appId}/${provider}`;

/**
 * What a delivery worker forgets when it hears 'credentials-changed': the endpoints' health of that
 * app and provider (`forget`), or, without a subject (anything may have changed), nothing of health
 * (it is judged again by the next answers). The worker drops its opened credentials itself.
 */
export function forgetCredentials(ctx: AppContext, subject: string | undefined): void {
  const match = subject ? /^(.+)\/(apns|fcm)$/.exec(subject) : null;
  if (match) ctx.endpointHealth.forget(match[1]!, match[2] as 'apns' | 'fcm');
}
