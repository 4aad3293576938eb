import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../../config/config.load';
import type { AppConfig, Config, LiveActivityTemplateConfig } from '../../config/config.schema';
import type { AppContext } from '../../context';
import { HttpError } from '../../lib/errors';
import { appsService, type CredentialsChanged } from './apps.service';
import { checkApnsIds, checkApnsKey, checkEndpointSync, checkServiceAccount, type ApnsCredentials, type FcmCredentials } from './credentials';
import type { OutboundPolicy } from '../../lib/outbound-policy';

/** Creates or updates the Live Activity templates the file declares under an app (the live-activities module's, passed in). */
export type SeedTemplates = (appId: string, templates: readonly LiveActivityTemplateConfig[]) => Promise<void>;

/**
 * Upserts the `[[apps]]` of the configuration: creates missing apps, and makes existing ones match
 * what the file says (name, plan, given secrets, credentials). Secrets the file leaves out are
 * generated once and kept. Files named in the config are read relative to the config file.
 */
export async function seedAppsFromConfig(ctx: AppContext, credentialsChanged: CredentialsChanged, seedTemplates: SeedTemplates = async () => {}): Promise<void> {
  const service = appsService(ctx, credentialsChanged);
  const credentials = readConfiguredCredentials(ctx.config);
  const problems: string[] = [];

  for (const [i, app] of ctx.config.apps.entries()) {
    try {
      const { apns, fcm } = credentials[i]!;
      const existing = await service.find(app.id);
      if (!existing) {
        await service.create({ id: app.id, name: app.name, plan: app.plan, appSecret: app.app_secret, signingSecret: app.signing_secret, source: 'config' });
      } else {
        await service.update(app.id, { name: app.name ?? existing.name, plan: app.plan });
        const current = service.secrets(existing);
        if (app.app_secret && app.app_secret !== current.appSecret) await service.setSecret(app.id, 'appSecret', app.app_secret);
        if (app.signing_secret && app.signing_secret !== current.signingSecret)
          await service.setSecret(app.id, 'signingSecret', app.signing_secret);
      }
      await seedLimits(service, app);
      const row = await service.get(app.id);
      if (apns && JSON.stringify(service.apns(row)) !== JSON.stringify(apns)) await service.setApns(app.id, apns);
      if (fcm && JSON.stringify(service.fcm(row)) !== JSON.stringify(fcm)) await service.setFcm(app.id, fcm);
      const budget = app.live_activity_budget;
      if (budget && (budget.priority10_per_hour !== undefined || budget.frequent_priority10_per_hour !== undefined))
        await service.update(app.id, { liveActivityBudget: { priority10PerHour: budget.priority10_per_hour, frequentPriority10PerHour: budget.frequent_priority10_per_hour } });
      if (app.liveActivityTemplates?.length) await seedTemplates(app.id, app.liveActivityTemplates);
    } catch (e) {
      problems.push(`${ctx.config.source}: apps[${i}] (${app.id}): ${problemText(e)}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/**
 * The quiet hours and frequency cap the file gives an app (both keys of a pair, or neither: one
 * alone is a problem naming the other); absent pairs leave what the admin API or console set.
 */
async function seedLimits(service: ReturnType<typeof appsService>, app: AppConfig): Promise<void> {
  const pair = <A, B>(a: A | undefined, b: B | undefined, names: [string, string]) => {
    if ((a === undefined) !== (b === undefined)) throw new ConfigError([`${a === undefined ? names[0] : names[1]} is needed with ${a === undefined ? names[1] : names[0]}`]);
    return a !== undefined;
  };
  const quiet = pair(app.quiet_hours_start, app.quiet_hours_end, ['quiet_hours_start', 'quiet_hours_end']);
  const cap = pair(app.frequency_cap_count, app.frequency_cap_per_hours, ['frequency_cap_count', 'frequency_cap_per_hours']);
  if (!quiet && !cap) return;
  try {
    await service.update(app.id, {
      ...(quiet && { quietHours: { start: app.quiet_hours_start!, end: app.quiet_hours_end! } }),
      ...(cap && { frequencyCap: { count: app.frequency_cap_count!, perHours: app.frequency_cap_per_hours! } }),
    });
  } catch (e) {
    // The API's field names, as the file names them.
    if (e instanceof HttpError) throw new ConfigError([e.detail.replace('quietHours.start and quietHours.end', 'quiet_hours_start and quiet_hours_end').replace('quietHours.', 'quiet_hours_')]);
    throw e;
  }
}

/**
 * Reads and checks the credentials every `[[apps]]` names (key files, service accounts, endpoints
 * under the outbound policy), without touching the database: `serve` seeds from it and
 * `check-config` runs it, so both refuse the same configurations. Throws one ConfigError listing
 * every problem.
 */
export function readConfiguredCredentials(config: Config): { apns?: ApnsCredentials; fcm?: FcmCredentials }[] {
  const base = config.source.endsWith('.toml') ? dirname(config.source) : process.cwd();
  const policy: OutboundPolicy = { allowPrivate: config.security.allow_private_endpoints };
  const problems: string[] = [];
  const read = config.apps.map((app, i) => {
    try {
      return { apns: app.apns ? readApns(app.apns, base, policy) : undefined, fcm: app.fcm ? readFcm(app.fcm, base, policy) : undefined };
    } catch (e) {
      problems.push(`${config.source}: apps[${i}] (${app.id}): ${problemText(e)}`);
      return {};
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return read;
}

const problemText = (e: unknown) => (e instanceof HttpError || e instanceof ConfigError ? e.message : String(e));

function readFile(path: string, base: string, key: string): string {
  const full = isAbsolute(path) ? path : resolve(base, path);
  try {
    return readFileSync(full, 'utf8');
  } catch (e) {
    throw new ConfigError([`${key} = "${path}": cannot read ${full} (${(e as NodeJS.ErrnoException).code ?? 'error'})`]);
  }
}

/** The broadcast host keys of `[apps.apns]` and the credential fields they become. */
const BROADCAST_HOSTS = [
  ['channels_endpoint', 'channelsEndpoint'],
  ['sandbox_channels_endpoint', 'sandboxChannelsEndpoint'],
  ['broadcast_endpoint', 'broadcastEndpoint'],
  ['sandbox_broadcast_endpoint', 'sandboxBroadcastEndpoint'],
] as const;

function readApns(apns: NonNullable<AppConfig['apns']>, base: string, policy: OutboundPolicy): ApnsCredentials {
  checkApnsIds(
    { bundleId: apns.bundle_id!, teamId: apns.team_id!, keyId: apns.key_id! },
    { bundleId: 'apns.bundle_id', teamId: 'apns.team_id', keyId: 'apns.key_id' },
  );
  const key = readFile(apns.key_file!, base, 'apns.key_file');
  checkApnsKey(key, 'apns.key_file');
  checkEndpointSync(apns.endpoint, 'apns.endpoint', policy);
  checkEndpointSync(apns.sandbox_endpoint, 'apns.sandbox_endpoint', policy);
  for (const field of BROADCAST_HOSTS) checkEndpointSync(apns[field[0]], `apns.${field[0]}`, policy);
  return {
    bundleId: apns.bundle_id!,
    teamId: apns.team_id!,
    keyId: apns.key_id!,
    key,
    environment: apns.environment as ApnsCredentials['environment'],
    ...(apns.endpoint ? { endpoint: apns.endpoint } : {}),
    ...(apns.sandbox_endpoint ? { sandboxEndpoint: apns.sandbox_endpoint } : {}),
    ...Object.fromEntries(BROADCAST_HOSTS.filter(([key]) => apns[key]).map(([key, field]) => [field, apns[key]])),
    ...(apns.ca_file ? { ca: readFile(apns.ca_file, base, 'apns.ca_file') } : {}),
  };
}

function readFcm(fcm: NonNullable<AppConfig['fcm']>, base: string, policy: OutboundPolicy): FcmCredentials {
  const text = readFile(fcm.service_account_file!, base, 'fcm.service_account_file');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError([`fcm.service_account_file is not valid JSON`]);
  }
  const serviceAccount = checkServiceAccount(json, 'fcm.service_account_file');
  checkEndpointSync(fcm.endpoint, 'fcm.endpoint', policy);
  checkEndpointSync(serviceAccount.token_uri, 'fcm.service_account_file token_uri', policy);
  return { serviceAccount, ...(fcm.endpoint ? { endpoint: fcm.endpoint } : {}) };
}
