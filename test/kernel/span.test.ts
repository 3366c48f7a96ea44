/** The kernel's span helper: spans without a call-site stack trace unless a host enables them. */
import { Effect, Exit, Option, Tracer } from "effect";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { enableSpanStackTraces, spanStackTracesEnabled, withSpan } from "../../core/kernel/Span.js";
import { findRepoRoot, listSources, stripComments } from "../architecture/dependencyRule.js";

/** Runs `program` under a tracer that keeps every span it starts; answers those spans. */
const recordSpans = async <A, E>(program: Effect.Effect<A, E>): Promise<ReadonlyArray<Tracer.Span>> => {
  const spans: Tracer.Span[] = [];
  await Effect.runPromiseExit(
    Effect.flatMap(Effect.tracer, (base) =>
      Effect.withTracer(
        program,
        Tracer.make({
          context: base.context,
          span: (name, parent, context, links, startTime, kind, options) => {
            const span = base.span(name, parent, context, links, startTime, kind, options);
            spans.push(span);
            return span;
          },
        }),
      ),
    ),
  );
  return spans;
};

// Effect writes the captured call site as `code.stacktrace` when a span ends in failure.
const failing = (name: string) => Effect.fail("boom").pipe(withSpan(name, { attributes: { "test.case": name } }));

t.test("a span from withSpan carries no stack trace by default", async (t) => {
  t.equal(spanStackTracesEnabled(), false, "off unless a host enables it");
  const [span, ...others] = await recordSpans(failing("kernel.default"));
  t.equal(others.length, 0);
  t.equal(span?.name, "kernel.default");
  t.equal(span?.attributes.get("test.case"), "kernel.default", "the options still reach the span");
  t.ok(span !== undefined && span.status._tag === "Ended" && Exit.isFailure(span.status.exit), "the span ended in failure");
  t.notOk(span?.attributes.has("code.stacktrace"), "no code.stacktrace attribute");
});

t.test("once enabled, a span from withSpan carries its declaring call site", async (t) => {
  enableSpanStackTraces();
  t.teardown(() => enableSpanStackTraces(false));
  const [span] = await recordSpans(failing("kernel.enabled"));
  const trace = span?.attributes.get("code.stacktrace");
  t.type(trace, "string");
  t.match(String(trace), /span\.test\.(js|ts)/, "the trace names the code that declared the span, not the helper");
});

t.test("an explicit captureStackTrace option wins over the switch", async (t) => {
  const [span] = await recordSpans(Effect.fail("boom").pipe(withSpan("kernel.explicit", { captureStackTrace: () => "here" })));
  t.equal(span?.attributes.get("code.stacktrace"), "here");
});

t.test("where the tracer is disabled, withSpan makes no span at all and leaves the effect alone", async (t) => {
  const innerSpan = Effect.option(Effect.currentSpan).pipe(withSpan("kernel.disabled"));
  const disabled = await Effect.runPromise(Effect.withTracerEnabled(innerSpan, false));
  t.ok(Option.isNone(disabled), "no span (not even a no-op one) is in the effect's context");
  const enabled = await Effect.runPromise(Effect.withTracerEnabled(innerSpan, true));
  t.equal(Option.map(enabled, (span) => span.name).pipe(Option.getOrUndefined), "kernel.disabled", "with the tracer on, the span is there");
  const failed = await Effect.runPromiseExit(Effect.withTracerEnabled(failing("kernel.disabled.failing"), false));
  t.ok(Exit.isFailure(failed), "a failure passes through unchanged");
});

t.test("the library opens its spans only through the kernel's withSpan (Effect.withSpan would capture a stack trace per call)", async (t) => {
  const root = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
  const sources = listSources(root).filter((file) => /^(core|ports|adapters|hosts)\//.test(file) && file !== "core/kernel/Span.ts");
  t.ok(sources.length > 100, `scanned ${sources.length} library files`);
  const direct = sources.filter((file) => /\bEffect\.withSpan\s*\(/.test(stripComments(readFileSync(join(root, file), "utf8"))));
  t.same(direct, [], "no file calls Effect.withSpan itself");
});
