CREATE TABLE "notification_receipts" (
	"message_id" bigint NOT NULL,
	"device_id" text NOT NULL,
	"received_at" bigint NOT NULL,
	CONSTRAINT "notification_receipts_message_id_device_id_pk" PRIMARY KEY("message_id","device_id")
);
--> statement-breakpoint
CREATE TABLE "throttled_sends" (
	"message_id" bigint PRIMARY KEY NOT NULL,
	"per_minute" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_receipts" ADD CONSTRAINT "notification_receipts_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "throttled_sends" ADD CONSTRAINT "throttled_sends_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;