/** The follow-up of committed work: its failures and defects are logged, not answered; interruption still propagates. */
import { Effect, Exit, Logger } from "effect";
import t from "tap";
import { followUpOfCommitted } from "../../core/kernel/FollowUp.js";

/** Runs `effect` capturing the log messages it writes. */
const runLogged = async <A, E>(effect: Effect.Effect<A, E>) => {
  const lines: string[] = [];
  const logger = Logger.make(({ message }) => void lines.push(String(Array.isArray(message) ? message.join(" ") : message)));
  const exit = await Effect.runPromiseExit(effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))));
  return { exit, lines };
};

t.test("a follow-up that succeeds runs and answers nothing more", async (t) => {
  let ran = 0;
  const { exit, lines } = await runLogged(followUpOfCommitted(Effect.sync(() => void (ran += 1)), "capturing", { order_id: "o1" }));
  t.ok(Exit.isSuccess(exit));
  t.equal(ran, 1);
  t.same(lines, []);
});

t.test("a typed failure of the follow-up is logged as a warning and the caller goes on", async (t) => {
  const { exit, lines } = await runLogged(followUpOfCommitted(Effect.fail("provider down"), "capturing", { order_id: "o1" }));
  t.ok(Exit.isSuccess(exit), "the committed work stays the answer");
  t.same(lines, ["capturing failed; its job retries"]);
});

t.test("a defect of the follow-up (a database error) is logged too, not answered as a 500", async (t) => {
  const { exit, lines } = await runLogged(followUpOfCommitted(Effect.die(new Error("connection lost")), "releasing", { order_id: "o1" }));
  t.ok(Exit.isSuccess(exit));
  t.same(lines, ["releasing failed; its job retries"]);
});

t.test("interruption is not swallowed: a request cut off stays interrupted", async (t) => {
  const { exit, lines } = await runLogged(followUpOfCommitted(Effect.interrupt, "capturing", { order_id: "o1" }));
  t.ok(Exit.isInterrupted(exit));
  t.same(lines, []);
});
