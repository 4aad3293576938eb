import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { match, searchParams } from './lib/router';
import { ActivitiesPage } from './pages/activities';
import { ActivityDetailPage } from './pages/activity-detail';
import { ActivityTemplatesPage } from './pages/activity-templates';
import { AppOverviewPage } from './pages/app-overview';
import { AppsPage } from './pages/apps';
import { AuditPage } from './pages/audit';
import { BroadcastsPage } from './pages/broadcasts';
import { DeliveriesPage } from './pages/deliveries';
import { DeliveryDetailPage } from './pages/delivery-detail';
import { InstancesPage } from './pages/instances';
import { MessagesPage } from './pages/messages';
import { NotFoundPage } from './pages/not-found';
import { DevicesPage } from './pages/devices';
import { EndUserPage } from './pages/end-user';
import { ReleaseDetailPage } from './pages/release-detail';
import { ReleasesPage } from './pages/releases';
import { SendPage } from './pages/send';
import { StartActivityPage } from './pages/start-activity';
import { TemplateGalleryPage } from './pages/template-gallery';
import { UsagePage } from './pages/usage';
import { WebhooksPage } from './pages/webhooks';

interface Route {
  pattern: string;
  title: string;
  render: (params: Record<string, string>, query: URLSearchParams) => VNode;
}

/** Console paths, most specific first (`/activities/new` before `/activities/:id`). */
const ROUTES: Route[] = [
  { pattern: '/', title: 'Apps', render: () => html`<${AppsPage} />` },
  { pattern: '/templates', title: 'Template gallery', render: () => html`<${TemplateGalleryPage} />` },
  { pattern: '/audit', title: 'Audit log', render: () => html`<${AuditPage} />` },
  { pattern: '/instances', title: 'Instances', render: () => html`<${InstancesPage} />` },
  { pattern: '/apps/:appId', title: 'Overview', render: (p) => html`<${AppOverviewPage} key=${p.appId} appId=${p.appId} />` },
  { pattern: '/apps/:appId/broadcasts', title: 'Broadcasts', render: (p) => html`<${BroadcastsPage} key=${p.appId} appId=${p.appId} />` },
  { pattern: '/apps/:appId/devices', title: 'End users & devices', render: (p) => html`<${DevicesPage} key=${p.appId} appId=${p.appId} />` },
  { pattern: '/apps/:appId/users/:endUserId', title: 'End user', render: (p) => html`<${EndUserPage} key=${p.endUserId} appId=${p.appId} endUserId=${p.endUserId} />` },
  { pattern: '/apps/:appId/activities', title: 'Live Activities', render: (p) => html`<${ActivitiesPage} key=${p.appId} appId=${p.appId} />` },
  { pattern: '/apps/:appId/activity-templates', title: 'Activity templates', render: (p) => html`<${ActivityTemplatesPage} key=${p.appId} appId=${p.appId} />` },
  {
    pattern: '/apps/:appId/activities/new',
    title: 'Start a Live Activity',
    render: (p, q) => html`<${StartActivityPage} key=${p.appId} appId=${p.appId} template=${q.get('template') ?? undefined} />`,
  },
  {
    pattern: '/apps/:appId/activities/:activityId',
    title: 'Live Activity',
    render: (p) => html`<${ActivityDetailPage} key=${p.activityId} appId=${p.appId} activityId=${p.activityId} />`,
  },
  { pattern: '/apps/:appId/releases', title: 'Releases', render: (p) => html`<${ReleasesPage} key=${p.appId} appId=${p.appId} />` },
  {
    pattern: '/apps/:appId/releases/:version',
    title: 'Release',
    render: (p) => html`<${ReleaseDetailPage} key=${`${p.appId}/${p.version}`} appId=${p.appId} version=${Number(p.version)} />`,
  },
  { pattern: '/apps/:appId/send', title: 'Send a notification', render: (p, q) => html`<${SendPage} key=${p.appId} appId=${p.appId} release=${q.get('release') ?? undefined} template=${q.get('template') ?? undefined} />` },
  { pattern: '/apps/:appId/messages', title: 'Messages', render: (p) => html`<${MessagesPage} key=${p.appId} appId=${p.appId} />` },
  { pattern: '/apps/:appId/deliveries', title: 'Deliveries', render: (p, q) => html`<${DeliveriesPage} key=${p.appId} appId=${p.appId} params=${q} />` },
  {
    pattern: '/apps/:appId/deliveries/:deliveryId',
    title: 'Delivery',
    render: (p) => html`<${DeliveryDetailPage} key=${p.deliveryId} appId=${p.appId} deliveryId=${p.deliveryId} />`,
  },
  { pattern: '/apps/:appId/usage', title: 'Usage', render: (p) => html`<${UsagePage} key=${p.appId} appId=${p.appId} />` },
  { pattern: '/apps/:appId/webhooks', title: 'Webhooks', render: (p) => html`<${WebhooksPage} key=${p.appId} appId=${p.appId} />` },
];

/** The page for a console path, the app it belongs to (for the sidebar) and its title. */
export function routeFor(path: string): { view: VNode; appId?: string; title: string } {
  for (const route of ROUTES) {
    const params = match(route.pattern, path);
    if (params) return { view: route.render(params, searchParams(path)), appId: params.appId, title: route.title };
  }
  return {
    title: 'Not found',
    view: html`<${NotFoundPage} title="Page not found">This page does not exist: check the address, or start again from the list of apps.<//>`,
  };
}
