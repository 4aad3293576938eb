CREATE TABLE "end_user_tags" (
	"app_id" text NOT NULL,
	"end_user_id" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "end_user_tags_app_id_end_user_id_key_pk" PRIMARY KEY("app_id","end_user_id","key")
);
--> statement-breakpoint
ALTER TABLE "end_user_tags" ADD CONSTRAINT "end_user_tags_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "end_user_tags_app_key_value" ON "end_user_tags" USING btree ("app_id","key","value");