import type { WebhookEventInput } from './delivery-events';
import type { WebhookEventType } from './webhooks.events';
