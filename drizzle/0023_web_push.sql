CREATE TABLE `web_push` (
	`app_id` text PRIMARY KEY NOT NULL,
	`public_key` text NOT NULL,
	`private_key_sealed` text NOT NULL,
	`subject` text NOT NULL,
	`default_url` text NOT NULL,
	`expiry_days` integer NOT NULL,
	`source` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `tokens` ADD `secret_sealed` text;