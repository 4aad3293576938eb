CREATE TABLE `broadcast_ops` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`broadcast_id` text NOT NULL,
	`app_id` text NOT NULL,
	`kind` text NOT NULL,
	`content` text,
	`status` text NOT NULL,
	`apns_done` integer DEFAULT false NOT NULL,
	`fcm_done` integer DEFAULT false NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`broadcast_id`) REFERENCES `broadcasts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `broadcast_ops_due` ON `broadcast_ops` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `broadcast_ops_broadcast` ON `broadcast_ops` (`broadcast_id`,`status`);--> statement-breakpoint
CREATE TABLE `broadcasts` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`template_slug` text NOT NULL,
	`attributes` text NOT NULL,
	`content_state` text NOT NULL,
	`storage_policy` integer NOT NULL,
	`state` text NOT NULL,
	`environment` text NOT NULL,
	`channel_id` text,
	`channel_state` text NOT NULL,
	`channel_reason` text,
	`topic` text NOT NULL,
	`last_timestamp` integer NOT NULL,
	`updates_sent` integer DEFAULT 0 NOT NULL,
	`subscribers_started` integer DEFAULT 0 NOT NULL,
	`held_reason` text,
	`end_reason` text,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `broadcasts_app` ON `broadcasts` (`app_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `broadcasts_channels` ON `broadcasts` (`app_id`,`environment`,`channel_state`);--> statement-breakpoint
ALTER TABLE `devices` ADD `os_version` text;