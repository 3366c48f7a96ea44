/**
 * An owner who grants and revokes staff roles can see who holds which (Conventions, Lists: keyset
 * pages with `limit` and `cursor`): `GET /v1/stores/:id/staff` answers one row per user and role,
 * ordered by user id then role, to the store's owners only (other staff 403, another store's
 * owner 404); a revoked role is no longer listed. SQLite and Postgres over HTTP.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { startCommerceServer } from "./http-support.js";

type Row = { user_id: string; role: string; granted_by: string };

t.test("the owner lists the store's staff roles in keyset pages; other staff and other stores may not", (t) =>
  forEachDialectConfig(t, "staff list", async (t, _config, dialect) => {
    const { call, staffedStore } = await startCommerceServer(t, dialect);
    const { owner, storeId, other, ada, bob, clerk } = await staffedStore();
    const expected = [
      ...["owner", "catalog_manager", "warehouse_operator", "support"].map((role) => ({ user_id: owner.id, role })),
      { user_id: ada.id, role: "warehouse_operator" },
      { user_id: bob.id, role: "warehouse_operator" },
      { user_id: clerk.id, role: "support" },
    ].sort((a, b) => (a.user_id === b.user_id ? (a.role < b.role ? -1 : 1) : a.user_id < b.user_id ? -1 : 1));

    const seen: Row[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof call>> = await call("GET", `/v1/stores/${storeId}/staff?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`, { token: owner.token });
      t.equal(page.status, 200);
      t.ok((page.body.data as Row[]).length <= 2, "at most limit");
      seen.push(...(page.body.data as Row[]));
      cursor = page.body.next_cursor as string | null;
    } while (cursor !== null);
    t.same(seen.map(({ user_id, role }) => ({ user_id, role })), expected, "every role once, by user id then role");
    t.ok(seen.filter((row) => row.user_id !== owner.id).every((row) => row.granted_by === owner.id), "with who granted it");

    t.equal((await call("GET", `/v1/stores/${storeId}/staff`, { token: ada.token })).status, 403, "a warehouse operator may not list staff");
    t.equal((await call("GET", `/v1/stores/${storeId}/staff`, { token: other.owner.token })).status, 404, "another store's owner: 404");
    t.match(await call("GET", `/v1/stores/${storeId}/staff?cursor=nope`, { token: owner.token }), { status: 400, body: { code: "invalid_cursor" } });

    t.equal((await call("DELETE", `/v1/stores/${storeId}/staff/${bob.id}/roles/warehouse_operator?reason=left`, { token: owner.token })).status, 204);
    const after = await call("GET", `/v1/stores/${storeId}/staff?limit=200`, { token: owner.token });
    t.notOk((after.body.data as Row[]).some((row) => row.user_id === bob.id), "a revoked role is no longer listed");
  }),
);
