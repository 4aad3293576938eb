CREATE TABLE `delivery_attempts` (
	`delivery_id` integer NOT NULL,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`provider` text,
	`provider_id` text,
	`reason` text,
	PRIMARY KEY(`delivery_id`, `attempt`),
	FOREIGN KEY (`delivery_id`) REFERENCES `deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `messages` ADD `template_slug` text;--> statement-breakpoint
CREATE INDEX `messages_app_template` ON `messages` (`app_id`,`template_slug`);--> statement-breakpoint
CREATE INDEX `deliveries_token` ON `deliveries` (`token_id`);--> statement-breakpoint
CREATE INDEX `deliveries_tokenless_device` ON `deliveries` (`device_id`) WHERE token_id IS NULL;--> statement-breakpoint
CREATE INDEX `deliveries_message` ON `deliveries` (`message_id`);