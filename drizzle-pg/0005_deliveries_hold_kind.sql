ALTER TABLE "deliveries" ADD COLUMN "hold_kind" text;--> statement-breakpoint
-- Held rows written before the column told their kind only by their reason text: read once here.
UPDATE deliveries SET hold_kind = CASE
    WHEN reason = 'apns channel paused' THEN 'apns_paused'
    WHEN reason = 'fcm channel paused' THEN 'fcm_paused'
    WHEN reason LIKE 'apns channel down: %' THEN 'apns_down'
    WHEN reason LIKE 'fcm channel down: %' THEN 'fcm_down'
    ELSE 'token' END
  WHERE status = 'held';
