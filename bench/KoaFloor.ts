/**
 * The HTTP framework floor: a plain Koa app with one route answering what /healthz answers,
 * with none of the host's middleware (request id, access log, error mapping, routing fallback).
 * Measured with the same autocannon settings, it is the best any route of the server can do.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Router from "@koa/router";
import Koa from "koa";

/** The path of the floor route. */
export const floorPath = "/empty";

/** Starts the floor app on 127.0.0.1 on a free port. */
export const startKoaFloor = async (): Promise<{ url: string; close: () => Promise<void> }> => {
  const app = new Koa();
  const router = new Router();
  router.get(floorPath, (ctx) => {
    ctx.body = { status: "ok" };
  });
  app.use(router.routes());
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
