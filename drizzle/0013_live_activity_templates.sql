CREATE TABLE `live_activity_templates` (
	`app_id` text NOT NULL,
	`slug` text NOT NULL,
	`attributes_type` text NOT NULL,
	`attributes` text NOT NULL,
	`content_state` text NOT NULL,
	`source` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`app_id`, `slug`),
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `tokens` ADD `attributes_type` text;