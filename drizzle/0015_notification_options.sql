CREATE TABLE `notification_messages` (
	`public_id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`message_id` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_messages_message` ON `notification_messages` (`message_id`);--> statement-breakpoint
ALTER TABLE `notification_templates` ADD `options` text;