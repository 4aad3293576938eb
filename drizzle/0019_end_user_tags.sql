CREATE TABLE `end_user_tags` (
	`app_id` text NOT NULL,
	`end_user_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`app_id`, `end_user_id`, `key`),
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `end_user_tags_app_key_value` ON `end_user_tags` (`app_id`,`key`,`value`);