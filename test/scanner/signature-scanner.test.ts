/**
 * Quarantine is real (issue 3, shared pieces): the built-in scanner flags the EICAR test file,
 * also when its bytes are split across chunks, flags added signatures, and passes clean content.
 */
import { Effect, Stream } from "effect";
import t from "tap";
import { eicarTestString, makeSignatureScanner } from "../../adapters/scanner/SignatureScanner.js";

const encode = (s: string) => new TextEncoder().encode(s);
const streamOf = (...parts: string[]) => Stream.fromIterable(parts.map(encode));

t.test("the EICAR test file is infected, even split across chunks; clean content is clean", async (t) => {
  const scanner = makeSignatureScanner();
  t.same(await Effect.runPromise(scanner.scan(streamOf(eicarTestString))), { verdict: "infected", signature: "EICAR-Test-File" });
  const cut = 20;
  const split = streamOf("prefix ", eicarTestString.slice(0, cut), eicarTestString.slice(cut, cut + 3), eicarTestString.slice(cut + 3), " suffix");
  t.same(await Effect.runPromise(scanner.scan(split)), { verdict: "infected", signature: "EICAR-Test-File" });
  t.same(await Effect.runPromise(scanner.scan(streamOf("just some notes ", eicarTestString.slice(0, 40)))), { verdict: "clean" });
  t.same(await Effect.runPromise(scanner.scan(Stream.empty)), { verdict: "clean" });
});

t.test("extra signatures are detected", async (t) => {
  const scanner = makeSignatureScanner({ signatures: [{ name: "Team-Marker", bytes: encode("DO-NOT-SHIP-7f3a") }] });
  t.same(await Effect.runPromise(scanner.scan(streamOf("xx DO-NOT-", "SHIP-7f3a yy"))), { verdict: "infected", signature: "Team-Marker" });
  t.same(await Effect.runPromise(scanner.scan(streamOf(eicarTestString))), { verdict: "infected", signature: "EICAR-Test-File" }, "EICAR stays on");
  t.same(await Effect.runPromise(scanner.scan(streamOf("DO-NOT-SHIP"))), { verdict: "clean" });
});
