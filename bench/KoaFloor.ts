/**
 * The HTTP framework floor: a plain Koa app with one route answering what /healthz answers,
 * with none of the host's middleware (request id, access log, error mapping, routing fallback).
 * Measured with the same autocannon settings, it is the best any route of the server can do.
 * Given a body, the route answers those bytes instead: the best a route answering that much can
 * do (a read's page costs the socket writes of its size, whatever the server does before).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Router from "@koa/router";
import Koa from "koa";

/** The path of the floor route. */
export const floorPath = "/empty";

/** A fixed answer for the floor route: the bytes a measured route answered, and their type. */
export interface FloorBody {
  readonly bytes: Buffer;
  readonly contentType: string;
}

/** Starts the floor app on 127.0.0.1 on a free port (answering `body` when given). */
export const startKoaFloor = async (body?: FloorBody): Promise<{ url: string; close: () => Promise<void> }> => {
  const app = new Koa();
  const router = new Router();
  router.get(floorPath, (ctx) => {
    if (body === undefined) {
      ctx.body = { status: "ok" };
      return;
    }
    ctx.type = body.contentType;
    ctx.body = body.bytes;
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
