PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_devices` (
	`id` text PRIMARY KEY NOT NULL,
	`app_id` text NOT NULL,
	`end_user_id` text NOT NULL,
	`platform` text NOT NULL,
	`token` text NOT NULL,
	`environment` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_devices`("id", "app_id", "end_user_id", "platform", "token", "environment", "created_at", "updated_at") SELECT "id", "app_id", "end_user_id", "platform", "token", "environment", "created_at", "updated_at" FROM `devices`;--> statement-breakpoint
DROP TABLE `devices`;--> statement-breakpoint
ALTER TABLE `__new_devices` RENAME TO `devices`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `devices_app_platform_token` ON `devices` (`app_id`,`platform`,`token`);--> statement-breakpoint
CREATE INDEX `devices_app_user` ON `devices` (`app_id`,`end_user_id`);--> statement-breakpoint
ALTER TABLE `activities` DROP COLUMN `push_token`;