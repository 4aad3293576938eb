CREATE TABLE `scheduled_sends` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`public_id` text NOT NULL,
	`app_id` text NOT NULL,
	`due_at` integer NOT NULL,
	`zones` text,
	`status` text NOT NULL,
	`send` text NOT NULL,
	`devices` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `scheduled_sends_due` ON `scheduled_sends` (`status`,`due_at`);--> statement-breakpoint
CREATE INDEX `scheduled_sends_public` ON `scheduled_sends` (`public_id`);--> statement-breakpoint
ALTER TABLE `apps` ADD `default_time_zone` text;