/**
 * Food delivery configuration (hosts/Config.ts): DELIVERY_DISPATCH_RADIUS_M, how far from the
 * pickup a courier may be to be offered a delivery, defaults to 20 km, refuses what is not 100 m
 * to 200 km, and reaches the module's settings (core/delivery/Dispatch.ts reads it).
 */
import t from "tap";
import { ConfigError, loadConfig } from "../../hosts/Config.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { startReferenceServer, testConfig } from "../hosts/support.js";

t.test("DELIVERY_DISPATCH_RADIUS_M defaults to 20 km, refuses what is not 100 m to 200 km, and sets the delivery module's dispatch radius", async (t) => {
  t.equal(loadConfig({}).delivery.settings.dispatchRadiusM, 20_000);
  t.equal(loadConfig({ DELIVERY_DISPATCH_RADIUS_M: "5000" }).delivery.settings.dispatchRadiusM, 5000);
  for (const value of ["99", "200001", "far", "1.5"]) {
    t.throws(() => loadConfig({ DELIVERY_DISPATCH_RADIUS_M: value }), ConfigError, `DELIVERY_DISPATCH_RADIUS_M=${value} is refused`);
  }
  const { server } = await startReferenceServer(t, await testConfig("sqlite", t, { DELIVERY_DISPATCH_RADIUS_M: "7500" }));
  t.equal((await server.core.runtime.runPromise(DeliverySettings)).dispatchRadiusM, 7500, "the reference server's delivery module dispatches within 7.5 km");
});
