/**
 * Which merchant webhook URLs the host allows besides https to public hosts (security audit S1).
 * Plain http to the loopback interface is for development and tests: the payment module keeps it
 * off unless told, and the reference server turns it on only outside production.
 */
import { Context } from "effect";

/** The host's webhook target settings. */
export interface WebhookTargetSettings {
  /** Whether plain-http endpoints on the loopback interface (localhost, 127.0.0.1, [::1]) are registered and called. */
  readonly allowLoopbackHttp: boolean;
}
export const WebhookTargetSettings = Context.GenericTag<WebhookTargetSettings>("domainkit/payments/WebhookTargetSettings");

/** Production-safe: https to public hosts only. */
export const defaultWebhookTargetSettings: WebhookTargetSettings = { allowLoopbackHttp: false };
