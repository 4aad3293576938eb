CREATE TABLE "push_to_start_slots" (
	"device_id" text PRIMARY KEY NOT NULL,
	"slots" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "push_to_start_slots" ADD CONSTRAINT "push_to_start_slots_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;