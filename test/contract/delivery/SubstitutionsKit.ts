/**
 * Contract kit for Substitutions: one proposal per order line (another for the same line answers
 * "exists" and changes nothing), read back as written, an order's listed by line and its own only;
 * a proposed substitution is decided once (the decision and its time recorded; a second decision,
 * either way, answers false and changes nothing); unknown ids find nothing.
 */
import { Effect } from "effect";
import { MenuItemId, SubstitutionId, type OrderId } from "../../../core/delivery/model/Ids.js";
import type { Substitution } from "../../../core/delivery/model/Substitution.js";
import type { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { Substitutions } from "../../../ports/delivery/Substitutions.js";
import { at, runCases, T0, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { seedOrder, seedRestaurant, uid } from "./fixtures.js";

/** The ports this kit needs (orders are written through their repository, restaurants through theirs). */
export type SubstitutionsKitPorts = Substitutions | OrdersRepository | RestaurantsRepository;

const subs = <A>(f: (r: Substitutions) => Effect.Effect<A>) => Effect.flatMap(Substitutions, f);

/** Order `n` (of restaurant `n`), stored. */
const seedOrderN = async (run: Run<SubstitutionsKitPorts>, n: number) => (await run(Effect.flatMap(seedRestaurant(n), (r) => seedOrder(r, n)))).id;

/** Proposal `n` for line `lineNo` of `orderId`. */
const proposal = (n: number, orderId: OrderId, lineNo: number, overrides: Partial<Substitution> = {}): Substitution => ({
  id: SubstitutionId.make(uid("sub", n)),
  orderId,
  lineNo,
  originalItemId: MenuItemId.make(uid("itm", 1)),
  originalName: "Margherita",
  replacementItemId: MenuItemId.make(uid("itm", 100 + n)),
  replacementName: `Replacement ${n}`,
  quantity: 1,
  replacementUnitPriceMinor: 950,
  chargedLineTotalMinor: 900,
  reason: "out of mozzarella",
  status: "proposed",
  proposedBy: uid("usr", 1),
  decidedAt: null,
  createdAt: T0,
  ...overrides,
});

/** The cases of the substitutions kit. */
export const substitutionsCases: ReadonlyArray<KitCase<SubstitutionsKitPorts>> = [
  {
    name: "substitutions: one proposal per order line: another for the same line answers exists and changes nothing",
    run: async (t, run) => {
      const o1 = await seedOrderN(run, 1);
      const o2 = await seedOrderN(run, 2);
      t.equal(await run(subs((s) => s.insert(proposal(1, o1, 1)))), "inserted");
      t.same(await run(subs((s) => s.find(uid("sub", 1)))), proposal(1, o1, 1), "read back as written");
      t.equal(await run(subs((s) => s.insert(proposal(2, o1, 1, { replacementName: "Another", reason: null })))), "exists", "the same line again, under a new id");
      t.equal(await run(subs((s) => s.find(uid("sub", 2)))), null, "nothing written");
      t.equal(await run(subs((s) => s.insert(proposal(1, o1, 1)))), "exists", "the very same proposal again (a retried call)");
      t.same(await run(subs((s) => s.find(uid("sub", 1)))), proposal(1, o1, 1), "the first proposal stands");
      t.equal(await run(subs((s) => s.insert(proposal(3, o2, 1)))), "inserted", "the same line number of another order is its own");
      t.equal(await run(subs((s) => s.insert(proposal(4, o1, 2)))), "inserted", "another line of the same order");
    },
  },
  {
    name: "substitutions: an order's substitutions by line, its own only; none for an order without any; null for an unknown id",
    run: async (t, run) => {
      const o1 = await seedOrderN(run, 1);
      const o2 = await seedOrderN(run, 2);
      await run(subs((s) => Effect.forEach([proposal(1, o1, 3), proposal(2, o2, 2), proposal(3, o1, 1), proposal(4, o1, 2)], (p) => s.insert(p))));
      const ofO1 = await run(subs((s) => s.ofOrder(o1)));
      t.same(ofO1.map((s) => s.lineNo), [1, 2, 3], "by line");
      t.same(ofO1[0], proposal(3, o1, 1), "read back as written");
      t.same((await run(subs((s) => s.ofOrder(o2)))).map((s) => s.id), [uid("sub", 2)], "another order's are apart");
      t.same(await run(subs((s) => s.ofOrder(uid("ord", 9)))), []);
      t.equal(await run(subs((s) => s.find(uid("sub", 9)))), null);
    },
  },
  {
    name: "substitutions: a proposed substitution is decided once, with its time; a second decision either way answers false and changes nothing",
    run: async (t, run) => {
      const o1 = await seedOrderN(run, 1);
      await run(subs((s) => Effect.forEach([proposal(1, o1, 1), proposal(2, o1, 2)], (p) => s.insert(p))));
      t.equal(await run(subs((s) => s.decide(uid("sub", 1), "accepted", at(60_000)))), true);
      const decided = proposal(1, o1, 1, { status: "accepted", decidedAt: at(60_000) });
      t.same(await run(subs((s) => s.find(uid("sub", 1)))), decided, "the decision and its time");
      t.equal(await run(subs((s) => s.decide(uid("sub", 1), "refused", at(70_000)))), false, "the other decision afterwards");
      t.equal(await run(subs((s) => s.decide(uid("sub", 1), "accepted", at(80_000)))), false, "the same decision again");
      t.same(await run(subs((s) => s.find(uid("sub", 1)))), decided, "the first decision stands, with its time");
      t.equal(await run(subs((s) => s.decide(uid("sub", 2), "refused", at(90_000)))), true, "another line is decided on its own");
      t.same((await run(subs((s) => s.ofOrder(o1)))).map((s) => [s.status, s.decidedAt]), [["accepted", at(60_000)], ["refused", at(90_000)]]);
      t.equal(await run(subs((s) => s.decide(uid("sub", 9), "accepted", at(90_000)))), false, "an unknown substitution");
    },
  },
];

/** Runs the substitutions kit. */
export const substitutionsSuite = (options: SuiteOptions<SubstitutionsKitPorts>): Promise<unknown> => runCases(options, substitutionsCases);
