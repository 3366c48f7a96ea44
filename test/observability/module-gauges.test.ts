/**
 * The gauges an operator pages on, per module (issue "Operability": "later modules add theirs the
 * same way"): read at scrape time from the modules' own tables, and moving when the state they
 * count is reached through the modules' use cases (SQLite and Postgres).
 */
import t from "tap";
import { databaseState } from "../../adapters/observability/StateCollectors.js";
import type { GaugeReading } from "../../adapters/observability/Metrics.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { commerceRuntime, forEachCommerceDialect, pendingPaymentOrder, seedStore } from "../commerce/support.js";
import { acceptedOrder, deliveryRuntime, forEachDeliveryDialect, openRestaurant } from "../delivery/support.js";
import { bytesOf, filesRuntime, forEachFilesDialect, uploadFile, uploadParts, workspaceWithDrive } from "../files/support.js";

const read = async (db: SqlDatabase, modules: { files?: boolean; commerce?: boolean; delivery?: boolean }) =>
  databaseState(db, { payments: false, ...modules })();

const valueOf = (readings: ReadonlyArray<GaugeReading>, metric: string, labels: Record<string, string> = {}): number | undefined =>
  readings.find((r) => r.metric === metric && Object.entries(labels).every(([k, v]) => r.labels?.[k] === v))?.value;

t.test("files: open uploads and unpublished versions are counted", (t) =>
  forEachFilesDialect(t, "files gauges", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws-gauges", "admin-1");
    const before = await read(db, { files: true });
    t.equal(valueOf(before, "domainkit_files_uploads_open"), 0);
    t.equal(valueOf(before, "domainkit_files_versions_unpublished", { status: "quarantined" }), 0);
    await uploadParts(env, { userId: "admin-1", workspaceId: "ws-gauges", parentId: root, name: "open.bin", bytes: bytesOf("still uploading") });
    await uploadFile(env, { userId: "admin-1", workspaceId: "ws-gauges", parentId: root, name: "done.bin", bytes: bytesOf("waiting for the scan") });
    const after = await read(db, { files: true });
    t.equal(valueOf(after, "domainkit_files_uploads_open"), 1, "the upload still open holds its reservation");
    t.equal(valueOf(after, "domainkit_files_versions_unpublished", { status: "quarantined" }), 1, "the completed one waits for the scanner");
    t.equal(valueOf(after, "domainkit_files_versions_unpublished", { status: "scan_failed" }), 0);
  }),
);

t.test("commerce: an order whose payment outcome is unknown is counted as payment_pending", (t) =>
  forEachCommerceDialect(t, "commerce gauges", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c);
    t.equal(valueOf(await read(db, { commerce: true }), "domainkit_commerce_orders", { status: "payment_pending" }), 0);
    await pendingPaymentOrder(c, store.id, variant.id, 1);
    const after = await read(db, { commerce: true });
    t.equal(valueOf(after, "domainkit_commerce_orders", { status: "payment_pending" }), 1);
    t.equal(valueOf(after, "domainkit_commerce_orders", { status: "cancellation_requested" }), 0);
  }),
);

t.test("delivery: an accepted order's delivery without a courier is counted as unassigned", (t) =>
  forEachDeliveryDialect(t, "delivery gauges", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const restaurant = await openRestaurant(rt);
    t.equal(valueOf(await read(db, { delivery: true }), "domainkit_delivery_deliveries_unassigned"), 0);
    await acceptedOrder(rt, "customer-1", restaurant);
    t.equal(valueOf(await read(db, { delivery: true }), "domainkit_delivery_deliveries_unassigned"), 1, "no courier has accepted an offer yet");
  }),
);
