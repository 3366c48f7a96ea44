/** Every port the e-commerce core uses (the union hosts and tests provide). */
import type { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Mailer } from "../../ports/Mailer.js";
import type { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { RealtimeBus } from "../../ports/Realtime.js";
import type { Transactions } from "../../ports/Transactions.js";
import type { CarrierTracking, CarrierWebhookReceiver } from "../../ports/commerce/Carriers.js";
import type { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import type { CartTokens } from "../../ports/commerce/CartTokens.js";
import type { CheckoutRiskRepository } from "../../ports/commerce/CheckoutRiskRepository.js";
import type { RiskSignalDigests } from "../../ports/commerce/RiskSignalDigests.js";
import type { CatalogRepository } from "../../ports/commerce/CatalogRepository.js";
import type { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import type { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { StoresRepository } from "../../ports/commerce/StoresRepository.js";

export type CommerceServices =
  | Ids
  | Jobs
  | Mailer
  | Outbox
  | Transactions
  | MerchantProvisioning
  | PaymentGateway
  | RealtimeBus
  | StoresRepository
  | CatalogRepository
  | InventoryRepository
  | CartsRepository
  | CartTokens
  | OrdersRepository
  | CheckoutRiskRepository
  | RiskSignalDigests
  | CarrierWebhookReceiver
  | CarrierTracking;
