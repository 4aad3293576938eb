CREATE TABLE `activity_instances` (
	`activity_id` text NOT NULL,
	`device_id` text NOT NULL,
	`platform` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	PRIMARY KEY(`activity_id`, `device_id`),
	FOREIGN KEY (`activity_id`) REFERENCES `activities`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `activity_instances_live_ios` ON `activity_instances` (`started_at`) WHERE ended_at IS NULL AND platform = 'ios';--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` text NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`device_id` text NOT NULL,
	`activity_id` text,
	`environment` text,
	`state` text NOT NULL,
	`invalid_reason` text,
	`invalidated_at` integer,
	`reported_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`activity_id`) REFERENCES `activities`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_value` ON `tokens` (`app_id`,`kind`,`value`) WHERE kind <> 'apns_activity';--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_activity_device` ON `tokens` (`activity_id`,`device_id`) WHERE kind = 'apns_activity';--> statement-breakpoint
CREATE INDEX `tokens_device` ON `tokens` (`device_id`,`kind`);--> statement-breakpoint
ALTER TABLE `activities` ADD `last_timestamp` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `deliveries` ADD `token_id` integer;