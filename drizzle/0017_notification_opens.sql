CREATE TABLE `notification_opens` (
	`message_id` integer NOT NULL,
	`device_id` text NOT NULL,
	`opened_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `device_id`),
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_messages_app` ON `notification_messages` (`app_id`,`message_id`);