/**
 * The shape shared by every contract kit: `suite({ test, factory, supports })` (docs/adding-a-module.md; after
 * abstract-level and keyv). `test` is the runner's test function, `factory` makes a fresh
 * adapter, `supports` declares optional capabilities; optional cases are gated on it, never on
 * an adapter's name. Each kit also exports its cases so an author can run one group alone.
 */
import { Effect, ManagedRuntime, type Layer } from "effect";

/** The assertions a kit uses; tap's test object satisfies it, other runners can adapt. */
export interface KitAssert {
  readonly ok: (value: unknown, ...message: Message) => unknown;
  readonly notOk: (value: unknown, ...message: Message) => unknown;
  readonly equal: (actual: unknown, expected: unknown, ...message: Message) => unknown;
  readonly not: (actual: unknown, expected: unknown, ...message: Message) => unknown;
  readonly same: (actual: unknown, expected: unknown, ...message: Message) => unknown;
}

/** An optional assertion message (a rest tuple, to match tap's signatures exactly). */
export type Message = [] | [message: string];

/** The runner's test function, e.g. `(name, fn) => t.test(name, fn)` with tap. */
export type KitTestFunction = (name: string, fn: (t: KitAssert) => Promise<void>) => unknown;

/** A fresh adapter under test: the layer providing the kit's ports, and how to dispose it. */
export interface AdapterUnderTest<R> {
  readonly layer: Layer.Layer<R>;
  readonly close: () => Promise<void>;
}

/** Makes a fresh, empty adapter for each case. */
export type AdapterFactory<R> = () => Promise<AdapterUnderTest<R>>;

/** Optional behaviour an adapter declares. */
export interface Capabilities {
  /**
   * The store serves several connections at once, so one can read while another holds an open
   * transaction (Postgres: yes; a single-connection SQLite or an in-memory store: no).
   */
  readonly concurrentConnections: boolean;
}

/** What every `xxxSuite` takes. */
export interface SuiteOptions<R> {
  readonly test: KitTestFunction;
  readonly factory: AdapterFactory<R>;
  readonly supports?: Partial<Capabilities>;
}

/** Runs an effect needing the adapter's ports. */
export type Run<R> = <A, E>(effect: Effect.Effect<A, E, R>) => Promise<A>;

/** One case of a kit: the rule it proves and how. */
export interface KitCase<R> {
  readonly name: string;
  /** Run only when the adapter declares these capabilities. */
  readonly requires?: ReadonlyArray<keyof Capabilities>;
  readonly run: (t: KitAssert, run: Run<R>, supports: Capabilities) => Promise<void>;
}

const defaults: Capabilities = { concurrentConnections: false };

/** Builds the adapter, runs `body` with a runner over its layer, then disposes everything. */
export const withAdapter = async <R, A>(factory: AdapterFactory<R>, body: (run: Run<R>) => Promise<A>): Promise<A> => {
  const adapter = await factory();
  const runtime = ManagedRuntime.make(adapter.layer);
  try {
    return await body((effect) => runtime.runPromise(effect));
  } finally {
    await runtime.dispose();
    await adapter.close();
  }
};

/** Registers each case (whose requirements the adapter meets) with the runner. */
export const runCases = <R>(options: SuiteOptions<R>, cases: ReadonlyArray<KitCase<R>>): Promise<unknown> => {
  const supports: Capabilities = { ...defaults, ...options.supports };
  const registered = cases
    .filter((c) => (c.requires ?? []).every((capability) => supports[capability]))
    .map((c) => options.test(c.name, (t) => withAdapter(options.factory, (run) => c.run(t, run, supports))));
  return Promise.all(registered);
};

/**
 * Before a race: runs `touch` (a harmless call of the ports under test) `racers` times at once and
 * waits for every one, so a pooled adapter has a connection open for each racer. On a cold pool
 * each racer waits for a connection of its own to open and they run one after another instead of
 * together, and a check-then-act adapter passed some races in most runs (test/examples/
 * broken-races-*.test.ts prove each race with such an adapter; docs/decisions.md has the rates).
 */
export const warmUp = <A, E, R>(racers: number, touch: Effect.Effect<A, E, R>): Effect.Effect<void, E, R> =>
  Effect.all(Array.from({ length: racers }, () => touch), { concurrency: "unbounded", discard: true });

/** A fixed instant the kits count from, far from any real clock. */
export const T0 = new Date("2030-01-01T00:00:00.000Z");

/** `T0` plus `ms` milliseconds. */
export const at = (ms: number): Date => new Date(T0.getTime() + ms);

/** Runs `effect` and answers how it exited, so a kit can assert on failures and defects. */
export const exitOf = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.exit(effect);
