/**
 * Delivery migration 19: a restaurant's currency never changes. Its menu is answered with one
 * currency, the restaurant's (core/delivery/model/Views.ts, PublishedMenuView), in which every
 * published version's prices were set and every quote is priced: an update that changes it is
 * refused, whatever writes around the core (no route changes it).
 */
import type { Migration } from "../../Migration.js";

const message = "dl_restaurants: a restaurant''s currency never changes";

export const deliveryMigration0019RestaurantCurrencyFixed: Migration = {
  version: 19,
  name: "restaurant_currency_fixed",
  sqlite: [
    `CREATE TRIGGER dl_restaurants_currency_fixed BEFORE UPDATE OF currency ON dl_restaurants WHEN NEW.currency IS NOT OLD.currency
     BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  ],
  postgres: [
    `CREATE FUNCTION dl_restaurants_currency_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.currency IS DISTINCT FROM OLD.currency THEN
         RAISE EXCEPTION '${message}' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER dl_restaurants_currency_fixed BEFORE UPDATE OF currency ON dl_restaurants FOR EACH ROW EXECUTE FUNCTION dl_restaurants_currency_fixed()`,
  ],
};
