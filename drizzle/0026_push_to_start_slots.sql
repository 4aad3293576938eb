CREATE TABLE `push_to_start_slots` (
	`device_id` text PRIMARY KEY NOT NULL,
	`slots` text NOT NULL,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
