CREATE TABLE `notification_receipts` (
	`message_id` integer NOT NULL,
	`device_id` text NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `device_id`),
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `throttled_sends` (
	`message_id` integer PRIMARY KEY NOT NULL,
	`per_minute` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);
