import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import { SWAGGER_CSP } from '../../http/security-headers';
import { HttpError } from '../../lib/errors';
import { SERVICE_KEY_HEADER, END_USER_SIGNATURE_HEADER } from '../apps/service-auth';
import type { Services } from '../../services';
import { VERSION } from '../../version';
import { DEMO } from '../apps/demo.service';
import { instanceBodyExamples, instanceParamOverrides } from './operation-docs';
import type { ErrorFacts } from './problem-example';
import { polishDocument, type DocumentedRoute } from './polish-document';
import { SWAGGER_ASSETS, SWAGGER_ICONS } from './swagger-assets';
import { swaggerPage } from './swagger-page';

const ASSET_PREFIX = '/swagger/assets';

/** Tags in the order Swagger UI shows them (the public API as a backend meets it, then the admin API), with the text under each; every tag an operation names is here (docs.tags.e2e.test.ts). */
const TAGS = [
  { name: 'Live Activities', description: 'Start, update, end and list Live Activities, from the eight built-in templates or the app’s own (typed) ones.' },
  { name: 'Live Activity streams', description: 'Put the state of a key; Islet starts, updates, does nothing or starts over before the 8-hour limit.' },
  { name: 'Broadcasts', description: 'One Live Activity for a whole audience: an APNs broadcast channel (iOS 18+) and an FCM topic, updated once for every subscriber.' },
  { name: 'Notifications', description: 'Send push notifications from a template of the live (or a Testing) release, now or scheduled; follow, list and cancel them.' },
  { name: 'Widgets', description: 'Reload the app’s widgets (iOS 26+) and controls (iOS 18+) through WidgetKit pushes to the tokens devices registered.' },
  { name: 'Devices', description: 'Register the devices of end users; a registered device makes its end user "connected".' },
  { name: 'End users', description: 'Tags an audience matches, and erasure of an end user with their devices and activities.' },
  { name: 'Admin: apps', description: 'Apps, plans, secrets and push credentials (admin token).' },
  { name: 'Admin: end users and devices', description: 'End users, testers and devices of an app (admin token).' },
  { name: 'Admin: live activities', description: 'An activity with its data and why it ended (admin token).' },
  { name: 'Admin: live activity templates', description: 'The app’s own Live Activity templates: its Swift ActivityAttributes type and typed fields (admin token).' },
  { name: 'Admin: broadcasts', description: 'Broadcasts and the APNs channels behind them, orphan channels included (admin token).' },
  { name: 'Admin: releases', description: 'Releases and their notification templates, and scheduled sends (admin token).' },
  { name: 'Admin: deliveries', description: 'What was queued and what the providers answered, by message, activity, device or state (admin token).' },
  { name: 'Admin: usage', description: 'Live activity minutes used in the billing period (admin token).' },
  { name: 'Admin: audit log', description: 'Who changed what, when and from where (admin token).' },
  { name: 'Admin: instances', description: 'The Islet processes serving this database, and which one runs the scheduler (admin token).' },
  { name: 'Admin: webhooks', description: 'Endpoints that receive signed events (Standard Webhooks), and their attempts (admin token).' },
  { name: 'Operations', description: 'Health, readiness and metrics, without authentication.' },
];

/**
 * The OpenAPI document at `/swagger/json` and Swagger UI at `/swagger`, with Swagger UI's own
 * files served from the binary: no request leaves the server. The page is ours, not the plugin's,
 * so that its start-up script is a file (a CSP without inline scripts) and tokens are not persisted.
 */
/** Where the document's examples find a real row: the first delivery of an app (the composition root reads it). */
export interface ExampleRows {
  firstDeliveryId(appId: string): Promise<number | undefined>;
}

export function docsRoutes(routes: () => DocumentedRoute[], services: Services, facts: ErrorFacts, rows: ExampleRows) {
  const serveAsset = (file: string) => {
    const asset = SWAGGER_ASSETS.get(file);
    if (!asset) throw new HttpError(404, `no route for GET ${ASSET_PREFIX}/${file}`);
    return new Response(Bun.file(asset.path), {
      headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' },
    });
  };
  const icons = new Elysia();
  for (const icon of SWAGGER_ICONS) icons.get(`/swagger/${icon}`, () => serveAsset(icon), { detail: { hide: true } });
  return new Elysia()
    .onAfterHandle({ as: 'global' }, async ({ path, responseValue }) => {
      if (path === '/swagger/json' && responseValue && typeof responseValue === 'object')
        return polishDocument(
          structuredClone(responseValue),
          routes(),
          facts,
          instanceParamOverrides(await rows.firstDeliveryId(DEMO.appId)),
          instanceBodyExamples(services.ctx.clock.now()),
        );
    })
    .get(`${ASSET_PREFIX}/:file`, ({ params }) => serveAsset(params.file), { detail: { hide: true } })
    .use(icons)
    .get(
      '/swagger',
      () =>
        new Response(swaggerPage(ASSET_PREFIX), {
          headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': SWAGGER_CSP, 'cache-control': 'no-cache' },
        }),
      { detail: { hide: true } },
    )
    .use(
      openapi({
        path: '/swagger',
        provider: null,
        exclude: { paths: [/^\/swagger/, /^\/console/] },
        documentation: {
          info: {
            title: 'Islet API',
            version: VERSION,
            description:
              'Live Activities (iOS Lock Screen and Dynamic Island, Android ongoing notifications) and templated push notifications. ' +
              'Every error is `{title, status, detail}` (RFC 9457 problem JSON; where the detail is a fixed text, extension members name the value: see each answer). Public endpoints take the App Secret in `X-Service-Key`; ' +
              'the admin API takes `Authorization: Bearer <admin token>`.',
          },
          tags: TAGS,
          components: {
            securitySchemes: {
              serviceKey: { type: 'apiKey', in: 'header', name: SERVICE_KEY_HEADER, description: "The app's App Secret." },
              endUserSignature: {
                type: 'apiKey',
                in: 'header',
                name: END_USER_SIGNATURE_HEADER,
                description: 'hex(HMAC-SHA256(Signing Secret, endUserId)), sent by the device itself.',
              },
              adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token.' },
              metricsToken: { type: 'http', scheme: 'bearer', description: 'The `[metrics] token`, when one is set.' },
            },
          },
        },
      }),
    );
}
