DROP INDEX `deliveries_token`;--> statement-breakpoint
CREATE INDEX `deliveries_notification_token` ON `deliveries` (`token_id`) WHERE activity_id IS NULL;--> statement-breakpoint
CREATE INDEX `activities_app_user` ON `activities` (`app_id`,`end_user_id`);--> statement-breakpoint
CREATE INDEX `activity_instances_device` ON `activity_instances` (`device_id`);