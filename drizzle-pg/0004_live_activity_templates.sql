CREATE TABLE "live_activity_templates" (
	"app_id" text NOT NULL,
	"slug" text NOT NULL,
	"attributes_type" text NOT NULL,
	"attributes" text NOT NULL,
	"content_state" text NOT NULL,
	"source" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "live_activity_templates_app_id_slug_pk" PRIMARY KEY("app_id","slug")
);
--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "attributes_type" text;--> statement-breakpoint
ALTER TABLE "live_activity_templates" ADD CONSTRAINT "live_activity_templates_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;