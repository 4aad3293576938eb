ALTER TABLE "deliveries" ADD COLUMN "hold_endpoint" text;--> statement-breakpoint
-- Held rows written before the column named their endpoint only in their reason text
-- ('apns channel down: https://api.push.apple.com'): read once here, never again.
UPDATE deliveries SET hold_endpoint = substr(reason, strpos(reason, ': ') + 2)
  WHERE status = 'held' AND hold_kind IN ('apns_down', 'fcm_down') AND strpos(reason, ': ') > 0;
