/**
 * Commerce migration 16: staff roles can be revoked. `shop_staff_revocations` audits each
 * revocation that took a role away (who lost which role, the owner who revoked it and why),
 * append-only like stock adjustments. A store always keeps an owner: the database refuses to
 * delete (or move away) the last `owner` row of a store. On Postgres the trigger first locks the
 * store's row, so two owners revoking each other at once are decided one after the other and the
 * second finds no other owner left.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const message = "shop_staff_roles: a store keeps at least one owner";

const revocations = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE shop_staff_revocations (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL REFERENCES shop_stores (id),
      user_id ${c.text} NOT NULL CHECK (length(user_id) BETWEEN 1 AND 100),
      role ${c.text} NOT NULL CHECK (role IN ('owner', 'catalog_manager', 'warehouse_operator', 'support')),
      actor_id ${c.text} NOT NULL,
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
      created_at ${c.time} NOT NULL
    )`,
    `CREATE INDEX shop_staff_revocations_user ON shop_staff_revocations (store_id, user_id, id)`,
    ...appendOnlyTriggersSql(dialect, "shop_staff_revocations"),
  ];
};

const otherOwner = `SELECT 1 FROM shop_staff_roles WHERE store_id = OLD.store_id AND role = 'owner' AND user_id <> OLD.user_id`;

export const commerceMigration0016StaffRoleRevocations: Migration = {
  version: 16,
  name: "staff_role_revocations",
  sqlite: [
    ...revocations("sqlite"),
    `CREATE TRIGGER shop_staff_roles_keep_owner BEFORE DELETE ON shop_staff_roles
     WHEN OLD.role = 'owner' AND NOT EXISTS (${otherOwner})
     BEGIN SELECT RAISE(ABORT, '${message}'); END`,
    `CREATE TRIGGER shop_staff_roles_keep_owner_update BEFORE UPDATE ON shop_staff_roles
     WHEN OLD.role = 'owner' AND (NEW.role <> 'owner' OR NEW.store_id <> OLD.store_id OR NEW.user_id <> OLD.user_id) AND NOT EXISTS (${otherOwner})
     BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  ],
  postgres: [
    ...revocations("postgres"),
    `CREATE FUNCTION shop_staff_roles_keep_owner() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF OLD.role = 'owner' AND (TG_OP = 'DELETE' OR NEW.role <> 'owner' OR NEW.store_id <> OLD.store_id OR NEW.user_id <> OLD.user_id) THEN
         PERFORM 1 FROM shop_stores WHERE id = OLD.store_id FOR UPDATE;
         IF NOT EXISTS (${otherOwner}) THEN
           RAISE EXCEPTION '${message}' USING ERRCODE = 'check_violation';
         END IF;
       END IF;
       IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_staff_roles_keep_owner BEFORE DELETE OR UPDATE ON shop_staff_roles FOR EACH ROW EXECUTE FUNCTION shop_staff_roles_keep_owner()`,
  ],
};
