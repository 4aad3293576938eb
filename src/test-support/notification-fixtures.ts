/** A notification template using every optional feature (issue 36): placeholders order, state, shop. */
export const richTemplate = {
  slug: 'order',
  title: 'Order {{order}}',
  body: 'Your order is {{state}}',
  subtitle: 'From {{shop}}',
  data: { url: 'shop://orders/{{order}}', kind: 'order' },
  sound: 'chime.caf',
  badge: 3,
  image: 'https://img.example.com/{{order}}.png',
  threadId: 'orders',
  category: 'ORDER',
  interruptionLevel: 'time-sensitive',
  relevanceScore: 0.8,
  androidChannelId: 'orders',
  collapseId: 'order-{{order}}',
  ttlSeconds: 3600,
  priority: 'high',
} as const;
