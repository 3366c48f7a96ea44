/** The Ids adapter hands out UUID v7s in time order. */
import { Effect } from "effect";
import t from "tap";
import { idsLayer } from "../../adapters/system/Ids.js";
import { Ids } from "../../ports/Ids.js";

t.test("ids are lowercase UUID v7 and never repeat", async (t) => {
  const ids = await Effect.runPromise(
    Effect.provide(Effect.flatMap(Ids, (i) => Effect.all(Array.from({ length: 500 }, () => i.next))), idsLayer),
  );
  t.ok(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)), "v7 format");
  t.equal(new Set(ids).size, 500, "unique");
  t.same([...ids].sort(), ids, "generated in sort order");
});
