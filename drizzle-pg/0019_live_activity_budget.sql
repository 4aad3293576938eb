ALTER TABLE "apps" ADD COLUMN "la_priority10_per_hour" integer;--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "la_frequent_priority10_per_hour" integer;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "priority10_sent" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "frequent_pushes_enabled" boolean;--> statement-breakpoint
ALTER TABLE "activity_instances" ADD COLUMN "reported_state" text;--> statement-breakpoint
ALTER TABLE "activity_instances" ADD COLUMN "priority10_sent" text;