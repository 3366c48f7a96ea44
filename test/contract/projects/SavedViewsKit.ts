/**
 * Contract kit for the SavedViewsRepository: a view's name is unique per owner and project; a
 * view reads back with its filters and sort; an owner's views of a project are listed by name
 * (another owner's or project's are not); deletion answers whether there was a view.
 */
import { Effect } from "effect";
import type { Project } from "../../../core/projects/model/Project.js";
import type { SavedView } from "../../../core/projects/model/SavedView.js";
import { SavedViewsRepository } from "../../../ports/projects/SavedViewsRepository.js";
import { runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedProject, uid, type SeedPorts } from "./fixtures.js";
import { SavedViewId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type SavedViewsKitPorts = SavedViewsRepository | SeedPorts;

const views = <A>(f: (r: SavedViewsRepository) => Effect.Effect<A>) => Effect.flatMap(SavedViewsRepository, f);

/** View `n` of `userId` in `project`. */
export const savedViewRecord = (project: Project, n: number, name: string, userId = "user-1"): SavedView => ({
  id: SavedViewId.make(uid("view", n)),
  workspaceId: project.workspaceId,
  projectId: project.id,
  userId,
  name,
  filters: { status: ["todo", "in_progress"], assignee_id: null, field: { field_id: "f1", value: 3 } },
  sort: { by: "updated_at", direction: "desc" },
  createdAt: T0,
});

/** The cases of the saved views repository kit. */
export const savedViewsCases: ReadonlyArray<KitCase<SavedViewsKitPorts>> = [
  {
    name: "saved views: a name is unique per owner and project; a view reads back with its filters and sort",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const other = await run(seedProject(1, 2));
      t.equal(await run(views((r) => r.insertView(savedViewRecord(project, 1, "Mine")))), true);
      t.same(await run(views((r) => r.findView(uid("view", 1)))), savedViewRecord(project, 1, "Mine"));
      t.equal(await run(views((r) => r.insertView(savedViewRecord(project, 2, "Mine")))), false, "the owner has one of that name");
      t.equal(await run(views((r) => r.findView(uid("view", 2)))), null, "nothing written");
      t.equal(await run(views((r) => r.insertView(savedViewRecord(project, 3, "Mine", "user-2")))), true, "another owner");
      t.equal(await run(views((r) => r.insertView(savedViewRecord(other, 4, "Mine")))), true, "another project");
    },
  },
  {
    name: "saved views: an owner's views of a project are listed by name; deletion answers whether there was one",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const other = await run(seedProject(1, 2));
      await run(
        views((r) =>
          Effect.forEach(
            [savedViewRecord(project, 1, "Zeta"), savedViewRecord(project, 2, "Alpha"), savedViewRecord(project, 3, "Beta", "user-2"), savedViewRecord(other, 4, "Gamma")],
            (v) => r.insertView(v),
          ),
        ),
      );
      t.same((await run(views((r) => r.listViews(project.id, "user-1")))).map((v) => v.name), ["Alpha", "Zeta"]);
      t.equal(await run(views((r) => r.deleteView(uid("view", 2)))), true);
      t.equal(await run(views((r) => r.deleteView(uid("view", 2)))), false, "already deleted");
      t.same((await run(views((r) => r.listViews(project.id, "user-1")))).map((v) => v.name), ["Zeta"]);
    },
  },
];

/** Runs the saved views repository kit. */
export const savedViewsSuite = (options: SuiteOptions<SavedViewsKitPorts>): Promise<unknown> => runCases(options, savedViewsCases);
