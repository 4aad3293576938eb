import type { AppContext } from './context';
import { appsService } from './modules/apps/apps.service';
import { serviceAuth } from './modules/auth/service-auth';
import { devicesRepository } from './modules/devices/devices.repository';

/** The use cases and repositories the routes call, built once per application from its context. */
export function buildServices(ctx: AppContext) {
  const apps = appsService(ctx);
  return {
    ctx,
    clock: ctx.clock,
    apps,
    auth: serviceAuth(ctx, apps),
    devices: devicesRepository(ctx.db),
  };
}

export type Services = ReturnType<typeof buildServices>;
