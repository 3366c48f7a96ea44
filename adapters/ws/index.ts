/** The realtime host base: `/v1/realtime` over `ws`, with its protocol and upgrade authentication. */
export * from "./Protocol.js";
export * from "./UpgradeAuthentication.js";
export * from "./RealtimeConnection.js";
export * from "./RealtimeServer.js";
