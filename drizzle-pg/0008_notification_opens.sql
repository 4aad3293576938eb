CREATE TABLE "notification_opens" (
	"message_id" bigint NOT NULL,
	"device_id" text NOT NULL,
	"opened_at" bigint NOT NULL,
	CONSTRAINT "notification_opens_message_id_device_id_pk" PRIMARY KEY("message_id","device_id")
);
--> statement-breakpoint
ALTER TABLE "notification_opens" ADD CONSTRAINT "notification_opens_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_messages_app" ON "notification_messages" USING btree ("app_id","message_id");