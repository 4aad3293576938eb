CREATE TABLE "web_push" (
	"app_id" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"private_key_sealed" text NOT NULL,
	"subject" text NOT NULL,
	"default_url" text NOT NULL,
	"expiry_days" integer NOT NULL,
	"source" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "secret_sealed" text;--> statement-breakpoint
ALTER TABLE "web_push" ADD CONSTRAINT "web_push_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;