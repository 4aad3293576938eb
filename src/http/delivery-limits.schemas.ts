import { t } from 'elysia';

// The request bodies of quiet hours and frequency caps (issue 48), for apps and end users alike;
// their values are checked by lib/delivery-limits.ts, whose 400s name the field.

export const QUIET_HOURS_DOC =
  'Quiet hours `{start, end}` (`HH:MM`, 24-hour clock, in each device’s `timeZone`, else the app’s `defaultTimeZone`; `end` before `start` crosses midnight): ' +
  'a plain notification (interruption level passive or active) that would reach a device inside them is held (`held` in the message status) and goes when they end there; ' +
  'its ttl still counts. time-sensitive and critical notifications, silent pushes and Live Activities go at once.';

export const FREQUENCY_CAP_DOC =
  'Frequency cap `{count, perHours}` (1–1,000 and 1–168): an end user gets at most `count` plain notifications in any `perHours` hours, one per send however many devices they have; ' +
  'the deliveries of one more are dropped with reason `frequency cap`. time-sensitive and critical notifications and silent pushes neither count nor are capped.';

export const QuietHoursBody = t.Object(
  {
    start: t.String({ description: 'When the quiet starts, `HH:MM` local time.', examples: ['22:00'] }),
    end: t.String({ description: 'When it ends, `HH:MM` local time.', examples: ['07:00'] }),
  },
  { additionalProperties: false },
);

export const FrequencyCapBody = t.Object(
  {
    count: t.Number({ description: 'Notifications allowed in the window, 1 to 1,000.', examples: [3] }),
    perHours: t.Number({ description: 'The window, in hours, 1 to 168.', examples: [24] }),
  },
  { additionalProperties: false },
);
