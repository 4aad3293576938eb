CREATE TABLE "auth_failures" (
	"name" text NOT NULL,
	"address" text NOT NULL,
	"failures" integer NOT NULL,
	"last_at" bigint NOT NULL,
	"locked_until" bigint NOT NULL,
	CONSTRAINT "auth_failures_name_address_pk" PRIMARY KEY("name","address")
);
--> statement-breakpoint
CREATE TABLE "cluster_instances" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"version" text NOT NULL,
	"started_at" bigint NOT NULL,
	"last_seen" bigint NOT NULL,
	"lease_until" bigint NOT NULL,
	"leader" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"csrf_token" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"token_hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shared_state" (
	"map" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "shared_state_map_key_pk" PRIMARY KEY("map","key")
);
--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "claimed_by" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "claimed_by" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "claimed_by" text;--> statement-breakpoint
CREATE INDEX "auth_failures_last" ON "auth_failures" USING btree ("last_at");--> statement-breakpoint
CREATE INDEX "cluster_instances_lease" ON "cluster_instances" USING btree ("lease_until");--> statement-breakpoint
CREATE INDEX "console_sessions_expires" ON "console_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "deliveries_claimed" ON "deliveries" USING btree ("claimed_by") WHERE status = 'sending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_claimed" ON "webhook_deliveries" USING btree ("claimed_by") WHERE status = 'sending';