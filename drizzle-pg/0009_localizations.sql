CREATE TABLE "notification_message_variants" (
	"message_id" bigint PRIMARY KEY NOT NULL,
	"main_message_id" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_templates" ADD COLUMN "localizations" text;--> statement-breakpoint
ALTER TABLE "notification_message_variants" ADD CONSTRAINT "notification_message_variants_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_message_variants" ADD CONSTRAINT "notification_message_variants_main_message_id_messages_id_fk" FOREIGN KEY ("main_message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_message_variants_main" ON "notification_message_variants" USING btree ("main_message_id");