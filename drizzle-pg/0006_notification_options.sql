CREATE TABLE "notification_messages" (
	"public_id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"message_id" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_templates" ADD COLUMN "options" text;--> statement-breakpoint
ALTER TABLE "notification_messages" ADD CONSTRAINT "notification_messages_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_messages_message" ON "notification_messages" USING btree ("message_id");