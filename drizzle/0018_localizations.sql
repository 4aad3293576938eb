CREATE TABLE `notification_message_variants` (
	`message_id` integer PRIMARY KEY NOT NULL,
	`main_message_id` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`main_message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_message_variants_main` ON `notification_message_variants` (`main_message_id`);--> statement-breakpoint
ALTER TABLE `notification_templates` ADD `localizations` text;