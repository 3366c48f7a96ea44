/**
 * Staff who add and remove staff can see who works for the restaurant (Conventions, Lists: keyset
 * pages): `GET /restaurants/:id/staff` answers the staff by user id, to its staff only (anyone
 * else 404); a removed member is no longer listed and can no longer list. SQLite and Postgres.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { openRestaurant, startDeliveryServer } from "./http-support.js";

type Row = { user_id: string; added_by: string };

for (const dialect of dialects) {
  t.test(`the restaurant's staff list its staff in keyset pages; nobody else may [${dialect}]`, async (t) => {
    const { as } = await startDeliveryServer(t, dialect);
    const owner = as();
    const [cook, driver, clerk, stranger] = [as(), as(), as(), as()];
    const r = await openRestaurant(owner, t);
    for (const member of [cook, driver, clerk]) t.equal((await owner.post(`/restaurants/${r.restaurantId}/staff`, { user_id: member.userId })).status, 201);
    const expected = [owner, cook, driver, clerk].map((c) => c.userId).sort();

    const seen: Row[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Record<string, unknown> } = await cook.get(`/restaurants/${r.restaurantId}/staff?limit=3${cursor === null ? "" : `&cursor=${cursor}`}`);
      t.equal(page.status, 200);
      t.ok((page.body.data as Row[]).length <= 3, "at most limit");
      seen.push(...(page.body.data as Row[]));
      cursor = page.body.next_cursor as string | null;
    } while (cursor !== null);
    t.same(seen.map((row) => row.user_id), expected, "every member once, by user id");
    t.ok(seen.filter((row) => row.user_id !== owner.userId).every((row) => row.added_by === owner.userId), "with who added them");

    t.match(await stranger.get(`/restaurants/${r.restaurantId}/staff`), { status: 404 }, "anyone else: 404");
    t.match(await cook.get(`/restaurants/${r.restaurantId}/staff?cursor=nope`), { status: 400, body: { code: "invalid_cursor" } });
    t.equal((await owner.delete(`/restaurants/${r.restaurantId}/staff/${driver.userId}?reason=left`)).status, 204);
    const after = await owner.get(`/restaurants/${r.restaurantId}/staff`);
    t.notOk((after.body.data as Row[]).some((row) => row.user_id === driver.userId), "a removed member is no longer listed");
    t.match(await driver.get(`/restaurants/${r.restaurantId}/staff`), { status: 404 }, "and can no longer list");
  });
}
