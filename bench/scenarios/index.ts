/** Every benchmark scenario, in the order `npm run bench` runs them. Modules append theirs. */
import type { Scenario } from "../Scenario.js";
import { filesChanges, filesChildren } from "./files.js";
import { filesChildren100kDeep, filesChildren100kFirst, filesSearch100kBroad, filesSearch100kNarrow, filesSearch100kReader, filesUpload256, filesUploadCreate } from "./filesScale.js";
import { commerceCatalog, commerceCheckout, commerceCheckoutHotSku } from "./commerce.js";
import { commerceSearchDeepPage, commerceSearchFirstPage } from "./commerceSearch.js";
import { deliveryDiscovery, deliveryLocations } from "./delivery.js";
import { deliveryAcceptContention, deliveryDiscoveryDeepPage, deliveryDiscoveryFirstPage, deliveryTrackingFanout } from "./deliveryContention.js";
import { healthz } from "./healthz.js";
import { paymentsConfirm, paymentsCreate } from "./payments.js";
import { paymentsWebhooks } from "./paymentsWebhooks.js";
import { projectsActivityDeepPage, projectsActivityFirstPage } from "./projectsActivity.js";
import { projectsFanoutUnderWrites } from "./projectsFanoutUnderWrites.js";
import { projectsRealtimeFanout, projectsRealtimeFanout10k } from "./projectsRealtime.js";
import { projectsCreateTask, projectsPatchTask } from "./projectsTasks.js";
import { revokeSessions } from "./revokeSessions.js";

/** The scenario registry. */
export const scenarios: ReadonlyArray<Scenario> = [
  healthz,
  revokeSessions,
  paymentsCreate,
  paymentsConfirm,
  paymentsWebhooks,
  projectsCreateTask,
  projectsPatchTask,
  projectsActivityFirstPage,
  projectsActivityDeepPage,
  projectsRealtimeFanout,
  projectsRealtimeFanout10k,
  projectsFanoutUnderWrites,
  filesChildren,
  filesChanges,
  filesChildren100kFirst,
  filesChildren100kDeep,
  filesSearch100kNarrow,
  filesSearch100kBroad,
  filesSearch100kReader,
  filesUploadCreate,
  filesUpload256,
  commerceCheckout,
  commerceCheckoutHotSku,
  commerceCatalog,
  commerceSearchFirstPage,
  commerceSearchDeepPage,
  deliveryLocations,
  deliveryDiscovery,
  deliveryAcceptContention,
  deliveryDiscoveryFirstPage,
  deliveryDiscoveryDeepPage,
  deliveryTrackingFanout,
];
