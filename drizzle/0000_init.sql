CREATE TABLE `activities` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`end_user_id` text NOT NULL,
	`template_slug` text NOT NULL,
	`platform` text NOT NULL,
	`state` text NOT NULL,
	`attributes` text NOT NULL,
	`content_state` text NOT NULL,
	`push_token` text,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`end_reason` text,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `activities_app_started` ON `activities` (`app_id`,`started_at`,`id`);--> statement-breakpoint
CREATE INDEX `activities_app_state` ON `activities` (`app_id`,`state`);--> statement-breakpoint
CREATE TABLE `apps` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`app_secret_hash` text NOT NULL,
	`app_secret_sealed` text NOT NULL,
	`signing_secret_sealed` text NOT NULL,
	`apns_sealed` text,
	`fcm_sealed` text,
	`apns_paused_reason` text,
	`fcm_paused_reason` text,
	`source` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` text NOT NULL,
	`message_id` integer NOT NULL,
	`device_id` text NOT NULL,
	`activity_id` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`provider` text,
	`provider_id` text,
	`reason` text,
	`sent_payload` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deliveries_due` ON `deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `deliveries_app` ON `deliveries` (`app_id`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_activity` ON `deliveries` (`activity_id`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`end_user_id` text NOT NULL,
	`platform` text NOT NULL,
	`token` text NOT NULL,
	`push_to_start_token` text,
	`environment` text NOT NULL,
	`invalidated_at` integer,
	`invalid_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `devices_app_platform_token` ON `devices` (`app_id`,`platform`,`token`);--> statement-breakpoint
CREATE INDEX `devices_app_user` ON `devices` (`app_id`,`end_user_id`);--> statement-breakpoint
CREATE TABLE `end_users` (
	`app_id` text NOT NULL,
	`id` text NOT NULL,
	`tester` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`app_id`, `id`),
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_id` text NOT NULL,
	`kind` text NOT NULL,
	`activity_id` text,
	`content` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `messages_activity` ON `messages` (`activity_id`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notification_templates` (
	`app_id` text NOT NULL,
	`version` integer NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`placeholders` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`app_id`, `version`, `slug`),
	FOREIGN KEY (`app_id`,`version`) REFERENCES `releases`(`app_id`,`version`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `releases` (
	`app_id` text NOT NULL,
	`version` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`app_id`, `version`),
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `releases_one_live` ON `releases` (`app_id`) WHERE status = 'Live';