/**
 * The task workflow is an explicit transition table (todo -> in_progress -> done, with reopen)
 * whose missing edges are 409 illegal_status_transition, and rank keys always fit between
 * neighbours — pure rules, no storage.
 */
import t from "tap";
import fc from "fast-check";
import { Effect, Either } from "effect";
import { canMove, initialStatus, moveStatus, transitions } from "../../core/projects/TaskWorkflow.js";
import { isRankKey, rankBetween } from "../../core/projects/Rank.js";
import { allows, mayHoldProjectRole } from "../../core/projects/Roles.js";

t.test("the default workflow starts at todo and allows work, completion, stopping and reopening", async (t) => {
  t.equal(initialStatus, "todo");
  t.ok(canMove("todo", "in_progress"));
  t.ok(canMove("in_progress", "done"));
  t.ok(canMove("in_progress", "todo"), "stop work");
  t.ok(canMove("done", "todo"), "reopen");
  t.notOk(canMove("todo", "done"), "work cannot be skipped");
  t.notOk(canMove("done", "in_progress"), "a done task is reopened first");
  t.same(Object.keys(transitions).sort(), ["done", "in_progress", "todo"]);
});

t.test("a move the table lacks is a 409 illegal_status_transition; staying put is not a move", async (t) => {
  const same = Effect.runSync(Effect.either(moveStatus("done", "done")));
  t.ok(Either.isRight(same));
  for (const from of ["todo", "in_progress", "done"] as const) {
    for (const to of ["todo", "in_progress", "done"] as const) {
      const result = Effect.runSync(Effect.either(moveStatus(from, to)));
      if (from === to || canMove(from, to)) t.ok(Either.isRight(result), `${from} -> ${to} allowed`);
      else t.match(result, { left: { code: "illegal_status_transition", category: "conflict" } });
    }
  }
});

t.test("rank keys: a key strictly between any two neighbours always exists", async (t) => {
  fc.assert(
    fc.property(fc.array(fc.nat({ max: 50 }), { minLength: 1, maxLength: 60 }), (positions) => {
      const keys: string[] = [];
      for (const p of positions) {
        const i = p % (keys.length + 1);
        const key = rankBetween(keys[i - 1] ?? null, keys[i] ?? null);
        if (!isRankKey(key)) return false;
        if (i > 0 && !(keys[i - 1]! < key)) return false;
        if (i < keys.length && !(key < keys[i]!)) return false;
        keys.splice(i, 0, key);
      }
      return true;
    }),
  );
  let last: string | null = null;
  for (let i = 0; i < 500; i++) last = rankBetween(last, null);
  t.ok(last !== null && last.length <= 12, `appending 500 keys keeps them short (${last})`);
});

t.test("project roles: viewers read, commenters comment, contributors edit, admins manage; guests are never admins", async (t) => {
  t.ok(allows("viewer", "read"));
  t.notOk(allows("viewer", "comment"));
  t.ok(allows("commenter", "comment"));
  t.notOk(allows("commenter", "edit_tasks"));
  t.ok(allows("contributor", "edit_tasks"));
  t.notOk(allows("contributor", "manage_members"));
  t.ok(allows("admin", "manage_members"));
  t.notOk(mayHoldProjectRole("guest", "admin"));
  t.ok(mayHoldProjectRole("member", "admin"));
});
