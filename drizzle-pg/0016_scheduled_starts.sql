CREATE TABLE "scheduled_starts" (
	"activity_id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"due_at" bigint NOT NULL,
	"status" text NOT NULL,
	"options" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "scheduled_starts" ADD CONSTRAINT "scheduled_starts_activity_id_activities_id_fk" FOREIGN KEY ("activity_id") REFERENCES "public"."activities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_starts" ADD CONSTRAINT "scheduled_starts_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scheduled_starts_due" ON "scheduled_starts" USING btree ("status","due_at");