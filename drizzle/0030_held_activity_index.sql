DROP INDEX `deliveries_held_activity`;--> statement-breakpoint
CREATE INDEX `deliveries_held_activity` ON `deliveries` (`activity_id`) WHERE status = 'held' AND activity_id IS NOT NULL;