ALTER TABLE `devices` ADD `locale` text;--> statement-breakpoint
ALTER TABLE `devices` ADD `time_zone` text;