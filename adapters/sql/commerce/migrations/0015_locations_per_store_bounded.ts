/**
 * Commerce migration 15: a store has at most 200 fulfillment locations (core/commerce/CreateStore.ts
 * `maxLocationsPerStore`). A variant's stock is read at every location at once (its stock answer,
 * checkout's reservation across locations), so the number of locations bounds them; the core
 * refuses the 201st with 422, and the database refuses it too. On Postgres the trigger first locks
 * the store's row, so two locations added at once are counted one after the other.
 */
import type { Migration } from "../../Migration.js";

const message = "shop_locations: a store has at most 200 locations";

export const commerceMigration0015LocationsPerStoreBounded: Migration = {
  version: 15,
  name: "locations_per_store_bounded",
  sqlite: [
    `CREATE TRIGGER shop_locations_per_store_bounded BEFORE INSERT ON shop_locations
     WHEN (SELECT count(*) FROM shop_locations WHERE store_id = NEW.store_id) >= 200
     BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  ],
  postgres: [
    `CREATE FUNCTION shop_locations_per_store_bounded() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       PERFORM 1 FROM shop_stores WHERE id = NEW.store_id FOR UPDATE;
       IF (SELECT count(*) FROM shop_locations WHERE store_id = NEW.store_id) >= 200 THEN
         RAISE EXCEPTION '${message}' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_locations_per_store_bounded BEFORE INSERT ON shop_locations FOR EACH ROW EXECUTE FUNCTION shop_locations_per_store_bounded()`,
  ],
};
