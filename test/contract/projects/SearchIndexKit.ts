/**
 * Contract kit for the SearchIndex: a document matches when every term is a prefix of one of
 * its words; an older version never overwrites a newer document; results are limited to the
 * given projects and to live tasks, newest first by id, strictly before the cursor, filtered
 * before the limit. (Terms are letters and digits: core/projects/Search.ts cleans them first.)
 */
import { Effect } from "effect";
import type { Project } from "../../../core/projects/model/Project.js";
import { SearchIndex, type SearchDocument } from "../../../ports/projects/SearchIndex.js";
import { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import { at, runCases, type KitAssert, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { seedProject, seedTasks, taskRecord, idsOf, uid, type SeedPorts } from "./fixtures.js";

/** The ports this kit needs. */
export type SearchIndexKitPorts = SearchIndex | TasksRepository | SeedPorts;

const index = <A>(f: (r: SearchIndex) => Effect.Effect<A>) => Effect.flatMap(SearchIndex, f);
const ids = idsOf;

/** Document `n` (a comment) on task `taskN` of `project`. */
export const searchDocument = (project: Project, n: number, taskN: number, text: string, version = 1): SearchDocument => ({
  id: uid("doc", n),
  kind: "comment",
  workspaceId: project.workspaceId,
  projectId: project.id,
  taskId: uid("task", taskN),
  text,
  version,
});

/** Projects 1 (tasks 1, 2) and 2 (task 3). */
const seed = Effect.gen(function* () {
  const a = yield* seedProject(1);
  const b = yield* seedProject(1, 2);
  yield* seedTasks([taskRecord(a, uid("task", 1)), taskRecord(a, uid("task", 2)), taskRecord(b, uid("task", 3))]);
  return { a, b };
});
const upsertAll = (docs: ReadonlyArray<SearchDocument>) => index((r) => Effect.forEach(docs, (d) => r.upsert(d)));

/** The adapter's optional upsertMany; when it has none, says so (the case has nothing more to check). */
const offeredUpsertMany = async (t: KitAssert, run: Run<SearchIndexKitPorts>): Promise<SearchIndex["upsertMany"]> => {
  const upsertMany = (await run(SearchIndex)).upsertMany;
  if (upsertMany === undefined) t.equal(typeof upsertMany, "undefined", "the adapter indexes document by document");
  return upsertMany;
};

/** The cases of the search index kit. */
export const searchIndexCases: ReadonlyArray<KitCase<SearchIndexKitPorts>> = [
  {
    name: "search: every term must match a word prefix; a hit reads back as indexed",
    run: async (t, run) => {
      const { a } = await run(seed);
      await run(upsertAll([searchDocument(a, 1, 1, "deploy the billing service"), searchDocument(a, 2, 1, "billing report"), searchDocument(a, 3, 2, "service outage")]));
      const search = (terms: ReadonlyArray<string>) => run(index((r) => r.search({ terms, scope: { projectIds: [a.id] }, limit: 10 })));
      t.same(ids(await search(["billing"])), [uid("doc", 2), uid("doc", 1)], "newest first by id");
      t.same(ids(await search(["bill", "serv"])), [uid("doc", 1)], "every term, each as a prefix");
      t.same(ids(await search(["illing"])), [], "a prefix, not any substring");
      t.same(ids(await search([])), [], "no term, no hit");
      const [hit] = await search(["outage"]);
      t.same(hit, { id: uid("doc", 3), kind: "comment", workspaceId: a.workspaceId, projectId: a.id, taskId: uid("task", 2), text: "service outage" });
    },
  },
  {
    name: "search: an older or equal version never overwrites a newer document",
    run: async (t, run) => {
      const { a } = await run(seed);
      t.same(await run(upsertAll([searchDocument(a, 1, 1, "first draft", 2)])), [true]);
      t.same(await run(upsertAll([searchDocument(a, 1, 1, "stale text", 1)])), [false], "older");
      t.same(await run(upsertAll([searchDocument(a, 1, 1, "same version", 2)])), [false], "equal");
      const search = (term: string) => run(index((r) => r.search({ terms: [term], scope: { projectIds: [a.id] }, limit: 10 })));
      t.same(ids(await search("draft")), [uid("doc", 1)]);
      t.same(ids(await search("stale")), [], "the refused text is not indexed");
      t.same(await run(upsertAll([searchDocument(a, 1, 1, "final wording", 3)])), [true], "newer");
      t.same(ids(await search("draft")), [], "the old words are gone");
      t.same(ids(await search("wording")), [uid("doc", 1)]);
    },
  },
  {
    name: "search: upsertMany (when offered) treats each document like upsert: a newer version replaces, an older or equal one is refused",
    run: async (t, run) => {
      const { a } = await run(seed);
      const upsertMany = await offeredUpsertMany(t, run);
      if (upsertMany === undefined) return;
      await run(upsertAll([searchDocument(a, 1, 1, "first draft", 2), searchDocument(a, 2, 1, "old notes", 1)]));
      await run(upsertMany([searchDocument(a, 1, 1, "stale text", 1), searchDocument(a, 2, 1, "new notes", 2), searchDocument(a, 3, 2, "fresh words", 1)]));
      const search = (term: string) => run(index((r) => r.search({ terms: [term], scope: { projectIds: [a.id] }, limit: 10 })));
      t.same(ids(await search("stale")), [], "an older version is refused");
      t.same(ids(await search("draft")), [uid("doc", 1)], "the stored newer text stays");
      t.same(ids(await search("new")), [uid("doc", 2)], "a newer version replaces");
      t.same(ids(await search("old")), [], "and its old words are gone");
      t.same(ids(await search("fresh")), [uid("doc", 3)], "a new document is indexed");
      await run(upsertMany([searchDocument(a, 1, 1, "same version", 2)]));
      t.same(ids(await search("same")), [], "an equal version is refused");
      await run(upsertMany([]));
    },
  },
  {
    name: "search: upsertMany (when offered) indexes every document of a batch larger than one statement holds, and replaces them all again",
    run: async (t, run) => {
      const { a } = await run(seed);
      const upsertMany = await offeredUpsertMany(t, run);
      if (upsertMany === undefined) return;
      const count = 1_201;
      const batch = (word: string, version: number) =>
        Array.from({ length: count }, (_, i) => searchDocument(a, i + 1, 1, `${word}${i + 1}x`, version));
      await run(upsertMany(batch("first", 1)));
      const search = (term: string) => run(index((r) => r.search({ terms: [term], scope: { projectIds: [a.id] }, limit: 10 })));
      for (const n of [1, 500, 501, 1_000, 1_001, count]) t.same(ids(await search(`first${n}x`)), [uid("doc", n)], `document ${n} is indexed`);
      await run(upsertMany(batch("second", 2)));
      for (const n of [1, 501, count]) {
        t.same(ids(await search(`second${n}x`)), [uid("doc", n)], `document ${n} has its new text`);
        t.same(ids(await search(`first${n}x`)), [], `document ${n} lost its old words`);
      }
    },
  },
  {
    name: "search: only the given projects and live tasks, strictly before the cursor, filtered before the limit",
    run: async (t, run) => {
      const { a, b } = await run(seed);
      await run(
        upsertAll([
          searchDocument(a, 1, 1, "release notes"),
          searchDocument(a, 2, 2, "release plan"),
          searchDocument(b, 3, 3, "release party"),
          searchDocument(a, 4, 1, "release date"),
        ]),
      );
      const search = (projectIds: ReadonlyArray<string>, limit: number, beforeId?: string) =>
        run(index((r) => r.search({ terms: ["release"], scope: { projectIds }, beforeId, limit }))).then(ids);
      t.same(await search([a.id], 10), [uid("doc", 4), uid("doc", 2), uid("doc", 1)], "not another project's");
      t.same(await search([a.id, b.id], 2, uid("doc", 4)), [uid("doc", 3), uid("doc", 2)]);
      t.same(await search([b.id], 1), [uid("doc", 3)], "the project filter applies before the limit");
      t.same(await search([], 10), [], "no visible project, no hit");
      const task2 = taskRecord(a, uid("task", 2));
      await run(Effect.flatMap(TasksRepository, (r) => r.updateTask({ ...task2, deletedAt: at(1), version: 2 }, 1)));
      t.same(await search([a.id], 10), [uid("doc", 4), uid("doc", 1)], "a task in the trash is not found");
    },
  },
];

/** Runs the search index kit. */
export const searchIndexSuite = (options: SuiteOptions<SearchIndexKitPorts>): Promise<unknown> => runCases(options, searchIndexCases);
