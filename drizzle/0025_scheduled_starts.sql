CREATE TABLE `scheduled_starts` (
	`activity_id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`due_at` integer NOT NULL,
	`status` text NOT NULL,
	`options` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`activity_id`) REFERENCES `activities`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `scheduled_starts_due` ON `scheduled_starts` (`status`,`due_at`);