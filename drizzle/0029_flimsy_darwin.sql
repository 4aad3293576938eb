CREATE TABLE `frequency_cap_windows` (
	`app_id` text NOT NULL,
	`end_user_id` text NOT NULL,
	`sent_at` text NOT NULL,
	PRIMARY KEY(`app_id`, `end_user_id`),
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `apps` ADD `quiet_hours` text;--> statement-breakpoint
ALTER TABLE `apps` ADD `frequency_cap` text;--> statement-breakpoint
ALTER TABLE `end_users` ADD `quiet_hours` text;--> statement-breakpoint
ALTER TABLE `end_users` ADD `frequency_cap` text;--> statement-breakpoint
CREATE INDEX `end_users_own_limits` ON `end_users` (`app_id`,`id`) WHERE quiet_hours IS NOT NULL OR frequency_cap IS NOT NULL;--> statement-breakpoint
CREATE INDEX `deliveries_quiet_due` ON `deliveries` (`next_attempt_at`) WHERE status = 'held' AND hold_kind = 'quiet';