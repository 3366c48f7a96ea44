/**
 * The operators' page of settlement dead letters over HTTP on the reference server (SQLite and
 * Postgres): dispatchers list them (anyone else 403); a replay needs an Idempotency-Key, a
 * dispatcher (else 404) and a recent sign-in (else 403 step_up_required); an unknown id is 404.
 * (The dead-lettering and replay themselves: settlement-consumer.test.ts.)
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { hostSecret } from "../hosts/support.js";
import { dialects } from "../support/databases.js";
import { freshKey, startDeliveryServer } from "./http-support.js";

for (const dialect of dialects) {
  t.test(`settlement dead letters are a dispatchers' page with a step-up replay [${dialect}]`, async (t) => {
    const dispatcherId = randomUUID();
    const { as, base } = await startDeliveryServer(t, dialect, { DELIVERY_DISPATCHERS: `${dispatcherId}=52.0:13.0:53.0:14.0` });
    const call = async (userId: string, authTime: number | undefined, method: string, path: string, body?: unknown, key?: string) => {
      const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600, ...(authTime === undefined ? {} : { authTime }) });
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(key === undefined ? {} : { "Idempotency-Key": key }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const nowSeconds = Math.floor(Date.now() / 1000);
    t.match(await as().get("/operator/settlement-dead-letters"), { status: 403 }, "not for customers");
    t.match(await call(dispatcherId, undefined, "GET", "/operator/settlement-dead-letters"), { status: 200, body: { data: [], next_cursor: null } });
    t.match(await call(dispatcherId, undefined, "GET", "/operator/settlement-dead-letters?cursor=nope"), { status: 400, body: { code: "invalid_cursor" } }, "keyset pages: an unreadable cursor is 400");
    t.match(await call(dispatcherId, undefined, "GET", "/operator/settlement-dead-letters?limit=201"), { status: 400 }, "limit at most 200");
    const replay = "/operator/settlement-dead-letters/no-such-job/replay";
    t.match(await call(dispatcherId, nowSeconds, "POST", replay, { reason: "fixed" }), { status: 400, body: { code: "idempotency_key_required" } });
    t.match(await call(dispatcherId, nowSeconds, "POST", replay, { reason: "fixed" }, freshKey()), { status: 404 }, "an unknown dead letter");
    t.match(await call(randomUUID(), nowSeconds, "POST", replay, { reason: "fixed" }, freshKey()), { status: 404 }, "a non-dispatcher: 404");
  });
}
