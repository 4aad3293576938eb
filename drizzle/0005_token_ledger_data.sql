-- Carries what the columns before the token ledger knew into it, before the next migration drops
-- them: nothing a device or an app reported is lost by the upgrade.
-- A device the provider had refused keeps its tokens refused (which token failed was not kept);
-- registering it again makes them active, as before.
INSERT INTO `tokens` (`app_id`, `kind`, `value`, `device_id`, `environment`, `state`, `invalid_reason`, `invalidated_at`, `reported_at`, `created_at`)
SELECT `app_id`, CASE `platform` WHEN 'ios' THEN 'apns_device' ELSE 'fcm_registration' END, `token`, `id`,
       CASE `platform` WHEN 'ios' THEN `environment` END,
       CASE WHEN `invalidated_at` IS NULL THEN 'active' ELSE 'invalid' END, `invalid_reason`, `invalidated_at`, `updated_at`, `created_at`
  FROM `devices` WHERE true
    ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- A push-to-start token belongs to one device: where a token rotation left it on two rows, the
-- row updated last keeps it.
INSERT INTO `tokens` (`app_id`, `kind`, `value`, `device_id`, `environment`, `state`, `invalid_reason`, `invalidated_at`, `reported_at`, `created_at`)
SELECT `app_id`, 'apns_push_to_start', `push_to_start_token`, `id`, `environment`,
       CASE WHEN `invalidated_at` IS NULL THEN 'active' ELSE 'invalid' END, `invalid_reason`, `invalidated_at`, `updated_at`, `created_at`
  FROM `devices` WHERE `platform` = 'ios' AND `push_to_start_token` IS NOT NULL
 ORDER BY `updated_at` DESC, `id`
    ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Each Active activity runs on the devices its end user had when it started.
INSERT OR IGNORE INTO `activity_instances` (`activity_id`, `device_id`, `platform`, `started_at`)
SELECT a.`id`, d.`id`, d.`platform`, a.`started_at`
  FROM `activities` a JOIN `devices` d ON d.`app_id` = a.`app_id` AND d.`end_user_id` = a.`end_user_id`
 WHERE a.`state` = 'Active' AND d.`invalidated_at` IS NULL AND d.`created_at` <= a.`started_at`;
--> statement-breakpoint
-- The one update token an activity had went to its end user's newest valid iPhone: it becomes
-- that device's instance token.
INSERT INTO `tokens` (`app_id`, `kind`, `value`, `device_id`, `activity_id`, `environment`, `state`, `reported_at`, `created_at`)
SELECT `app_id`, 'apns_activity', `push_token`, `device_id`, `id`, `environment`, 'active', `started_at`, `started_at`
  FROM (SELECT a.`app_id`, a.`push_token`, a.`id`, a.`started_at`, d.`id` AS `device_id`, d.`environment`
          FROM `activities` a
          JOIN `devices` d ON d.`id` = (SELECT `id` FROM `devices`
                                         WHERE `app_id` = a.`app_id` AND `end_user_id` = a.`end_user_id` AND `platform` = 'ios' AND `invalidated_at` IS NULL
                                         ORDER BY `created_at` DESC, `id` DESC LIMIT 1)
         WHERE a.`push_token` IS NOT NULL);
--> statement-breakpoint
INSERT OR IGNORE INTO `activity_instances` (`activity_id`, `device_id`, `platform`, `started_at`)
SELECT t.`activity_id`, t.`device_id`, 'ios', a.`started_at`
  FROM `tokens` t JOIN `activities` a ON a.`id` = t.`activity_id`
 WHERE t.`kind` = 'apns_activity' AND a.`state` = 'Active';
--> statement-breakpoint
-- Unfinished deliveries name the token they will use; an iOS update or end whose activity token
-- never arrived keeps none and waits for it, as before.
UPDATE `deliveries` SET `token_id` = (
  SELECT t.`id` FROM `tokens` t
    JOIN `messages` m ON m.`id` = `deliveries`.`message_id`
    JOIN `devices` d ON d.`id` = `deliveries`.`device_id`
   WHERE t.`device_id` = `deliveries`.`device_id` AND (
         (d.`platform` = 'android' AND t.`kind` = 'fcm_registration') OR
         (d.`platform` = 'ios' AND m.`kind` = 'notification' AND t.`kind` = 'apns_device') OR
         (d.`platform` = 'ios' AND m.`kind` = 'la_start' AND t.`kind` = 'apns_push_to_start') OR
         (d.`platform` = 'ios' AND m.`kind` IN ('la_update', 'la_end') AND t.`kind` = 'apns_activity' AND t.`activity_id` = `deliveries`.`activity_id`))
   LIMIT 1)
 WHERE `status` IN ('pending', 'held', 'sending');
