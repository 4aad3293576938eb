ALTER TABLE "devices" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "time_zone" text;