/**
 * Contract kit for ClientSecrets: the secret issued for an intent verifies for that intent only,
 * and no other secret does; an intent's secret is minted once (a second issue never replaces it).
 */
import { Effect } from "effect";
import { ClientSecrets } from "../../../ports/payments/ClientSecrets.js";
import { PaymentsRepository } from "../../../ports/payments/PaymentsRepository.js";
import { at, exitOf, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedIntent, uid } from "./fixtures.js";

/** The ports this kit needs (intents are written through the PaymentsRepository). */
export type ClientSecretsKitPorts = ClientSecrets | PaymentsRepository;

const secrets = <A>(f: (r: ClientSecrets) => Effect.Effect<A>) => Effect.flatMap(ClientSecrets, f);

/** The cases of the client secrets kit. */
export const clientSecretsCases: ReadonlyArray<KitCase<ClientSecretsKitPorts>> = [
  {
    name: "client secrets: an intent's secret verifies for that intent only; no other secret does",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1));
      const b = await run(seedIntent(1, 2));
      const secretA = await run(secrets((r) => r.issue({ intentId: a.id, merchantId: a.merchantId, now: T0 })));
      const secretB = await run(secrets((r) => r.issue({ intentId: b.id, merchantId: b.merchantId, now: T0 })));
      t.ok(secretA.length >= 32, "a long secret");
      t.not(secretA, secretB);
      t.equal(await run(secrets((r) => r.verify(a.id, secretA))), true);
      t.equal(await run(secrets((r) => r.verify(b.id, secretB))), true);
      t.equal(await run(secrets((r) => r.verify(b.id, secretA))), false, "another intent's secret");
      t.equal(await run(secrets((r) => r.verify(a.id, `${secretA}x`))), false);
      t.equal(await run(secrets((r) => r.verify(a.id, ""))), false);
      t.equal(await run(secrets((r) => r.verify(uid("pi", 9), secretA))), false, "an intent without a secret");
    },
  },
  {
    name: "client secrets: minted once per intent: a second issue never replaces the first secret",
    run: async (t, run) => {
      const a = await run(seedIntent(1, 1));
      const first = await run(secrets((r) => r.issue({ intentId: a.id, merchantId: a.merchantId, now: T0 })));
      await run(exitOf(secrets((r) => r.issue({ intentId: a.id, merchantId: a.merchantId, now: at(10) }))));
      t.equal(await run(secrets((r) => r.verify(a.id, first))), true, "the first secret still verifies");
    },
  },
];

/** Runs the client secrets kit. */
export const clientSecretsSuite = (options: SuiteOptions<ClientSecretsKitPorts>): Promise<unknown> => runCases(options, clientSecretsCases);
