CREATE TABLE "frequency_cap_windows" (
	"app_id" text NOT NULL,
	"end_user_id" text NOT NULL,
	"sent_at" text NOT NULL,
	CONSTRAINT "frequency_cap_windows_app_id_end_user_id_pk" PRIMARY KEY("app_id","end_user_id")
);
--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "quiet_hours" text;--> statement-breakpoint
ALTER TABLE "apps" ADD COLUMN "frequency_cap" text;--> statement-breakpoint
ALTER TABLE "end_users" ADD COLUMN "quiet_hours" text;--> statement-breakpoint
ALTER TABLE "end_users" ADD COLUMN "frequency_cap" text;--> statement-breakpoint
ALTER TABLE "frequency_cap_windows" ADD CONSTRAINT "frequency_cap_windows_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_quiet_due" ON "deliveries" USING btree ("next_attempt_at") WHERE status = 'held' AND hold_kind = 'quiet';--> statement-breakpoint
CREATE INDEX "end_users_own_limits" ON "end_users" USING btree ("app_id","id") WHERE quiet_hours IS NOT NULL OR frequency_cap IS NOT NULL;