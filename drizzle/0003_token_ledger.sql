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
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_devices` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`end_user_id` text NOT NULL,
	`platform` text NOT NULL,
	`token` text NOT NULL,
	`environment` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_devices`("id", "app_id", "end_user_id", "platform", "token", "environment", "created_at", "updated_at") SELECT "id", "app_id", "end_user_id", "platform", "token", "environment", "created_at", "updated_at" FROM `devices`;--> statement-breakpoint
DROP TABLE `devices`;--> statement-breakpoint
ALTER TABLE `__new_devices` RENAME TO `devices`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `devices_app_platform_token` ON `devices` (`app_id`,`platform`,`token`);--> statement-breakpoint
CREATE INDEX `devices_app_user` ON `devices` (`app_id`,`end_user_id`);--> statement-breakpoint
ALTER TABLE `activities` ADD `last_timestamp` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `activities` DROP COLUMN `push_token`;--> statement-breakpoint
ALTER TABLE `deliveries` ADD `token_id` integer;