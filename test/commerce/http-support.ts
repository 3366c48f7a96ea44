/**
 * HTTP test support of the e-commerce module: a reference server (SQLite or Postgres) mounting
 * identity, payments over an observable sandbox and commerce; users with minted tokens; a JSON
 * call helper; a store set up through the API (owner, location, one product, stock).
 */
import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { makeSandboxProvider, type SandboxOptions } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule, type CommerceModuleOptions } from "../../hosts/modules/commerceModule.js";
import { identityModule } from "../../hosts/modules/identityModule.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";
import type { Dialect, HasTeardown } from "../support/databases.js";
import { sandboxPaymentsModule } from "../payments/support.js";
import type { MailMessage, Mailer } from "../../ports/Mailer.js";
import { Effect } from "effect";
import type { Limits } from "../../adapters/koa/Limits.js";
import { connectRealtimeClient } from "../support/realtimeClient.js";

/** A JSON answer. */
export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
}

/** A user of the server: id and bearer token. */
export interface User {
  readonly id: string;
  readonly token: string;
}

/** Starts the server; answers helpers bound to it. */
export const startCommerceServer = async (
  t: HasTeardown,
  dialect: Dialect,
  sandbox: SandboxOptions = {},
  commerce: Omit<CommerceModuleOptions, "mailer"> = {},
  host: { readonly limits?: Partial<Limits> } = {},
) => {
  const provider = makeSandboxProvider(sandbox);
  const mail: MailMessage[] = [];
  const mailer: Mailer = { send: (message) => Effect.sync(() => void mail.push(message)) };
  const config = await testConfig(dialect, t);
  const modules = compose().add(identityModule).add(sandboxPaymentsModule(provider)).add(makeCommerceModule({ mailer, ...commerce }));
  const { server, logText } = await startReferenceServer(t, config, { modules, ...host });
  const user = async (): Promise<User> => {
    const id = randomUUID();
    return { id, token: await mintToken({ secret: hostSecret, userId: id, ttlSeconds: 600 }) };
  };
  const call = async (
    method: string,
    path: string,
    init: { token?: string; key?: string; body?: unknown; headers?: Record<string, string>; from?: string } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== undefined) headers.Authorization = `Bearer ${init.token}`;
    if (init.key !== undefined) headers["Idempotency-Key"] = init.key;
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    if (init.from !== undefined) return callFrom(init.from, `${server.url}${path}`, method, headers, body);
    const response = await fetch(`${server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>), headers: response.headers };
  };
  /** A store (in EUR unless told) with a location and one product of one variant (price 1,000, tax 10%) with `stock` units. */
  const setupStore = async (options: { readonly stock?: number; readonly price?: number; readonly currency?: string } = {}) => {
    const owner = await user();
    const store = await call("POST", "/v1/stores", { token: owner.token, body: { name: "Tea shop", currency: options.currency ?? "EUR", tax_rate_basis_points: 1000 } });
    const storeId = String(store.body.id);
    const location = await call("POST", `/v1/stores/${storeId}/locations`, { token: owner.token, body: { name: "Main warehouse" } });
    const product = await call("POST", `/v1/stores/${storeId}/products`, {
      token: owner.token,
      body: { title: "Teapot", description: "Cast iron teapot", variants: [{ sku: `TEA-${randomUUID().slice(0, 8)}`, price_minor: options.price ?? 1000 }] },
    });
    const variant = (product.body.variants as Array<Record<string, unknown>>)[0]!;
    const locationId = String(location.body.id);
    const variantId = String(variant.id);
    if ((options.stock ?? 10) > 0) {
      await call("POST", "/v1/inventory/adjustments", {
        token: owner.token,
        body: { variant_id: variantId, location_id: locationId, delta: options.stock ?? 10, reason: "initial stock" },
      });
    }
    return { owner, store: store.body, storeId, locationId, productId: String(product.body.id), variantId, variant };
  };
  /**
   * A store (5 units) with two warehouse operators (ada, bob) and a support clerk, another
   * store, and a buyer: the cast of the fulfillment and staff tests.
   */
  const staffedStore = async () => {
    const store = await setupStore({ stock: 5 });
    const other = await setupStore({ stock: 1 });
    const [ada, bob, clerk, buyer] = [await user(), await user(), await user(), await user()];
    for (const [member, role] of [[ada, "warehouse_operator"], [bob, "warehouse_operator"], [clerk, "support"]] as const) {
      const granted = await call("POST", `/v1/stores/${store.storeId}/staff`, { token: store.owner.token, body: { user_id: member.id, role } });
      if (granted.status !== 201) throw new Error(`granting ${role} answered ${granted.status}`);
    }
    return { ...store, other, ada, bob, clerk, buyer };
  };
  /** A customer's cart holding `quantity` of `variantId`. */
  const cartWith = async (customer: User, storeId: string, variantId: string, quantity: number) => {
    const cart = await call("POST", "/v1/carts", { token: customer.token, body: { store_id: storeId } });
    const cartId = String(cart.body.id);
    await call("POST", `/v1/carts/${cartId}/lines`, { token: customer.token, body: { variant_id: variantId, quantity } });
    return cartId;
  };
  /** A realtime socket of `token`, with the messages it received. */
  const socket = async (token: string) => {
    const client = await connectRealtimeClient(server.url, token);
    t.teardown(() => client.socket.terminate());
    return { ws: client.socket, messages: client.messages, send: client.send };
  };
  return { server, config, provider, mail, user, call, setupStore, staffedStore, cartWith, socket, logText };
};

/** A call sent from the local address `from` (another loopback address is another client IP to the server). */
const callFrom = (from: string, url: string, method: string, headers: Record<string, string>, body: string | undefined): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, headers, localAddress: from }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        const answered = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") answered.set(name, value);
        resolve({ status: response.statusCode ?? 0, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>), headers: answered });
      });
      response.on("error", reject);
    });
    sent.on("error", reject);
    sent.end(body);
  });

/** The checkout body of a cart. */
export const checkoutBody = (cartId: string, overrides: Record<string, unknown> = {}) => ({
  cart_id: cartId,
  payment_method: "pm_card_visa",
  shipping_address: { name: "Ada Lovelace", line1: "1 Analytical St", city: "London", postcode: "N1 1AA", country: "GB" },
  email: "ada@example.com",
  ...overrides,
});

let seq = 0;
/** A fresh Idempotency-Key. */
export const freshKey = (): string => `commerce-${process.pid}-${++seq}-${Math.random().toString(36).slice(2)}`;

export { eventually } from "../support/eventually.js";
