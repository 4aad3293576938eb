ALTER TABLE `apps` ADD `la_priority10_per_hour` integer;--> statement-breakpoint
ALTER TABLE `apps` ADD `la_frequent_priority10_per_hour` integer;--> statement-breakpoint
ALTER TABLE `broadcasts` ADD `priority10_sent` text;--> statement-breakpoint
ALTER TABLE `devices` ADD `frequent_pushes_enabled` integer;--> statement-breakpoint
ALTER TABLE `activity_instances` ADD `reported_state` text;--> statement-breakpoint
ALTER TABLE `activity_instances` ADD `priority10_sent` text;