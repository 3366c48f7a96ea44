/** The background worker: outbox relay, durable job runner, realtime fan-out consumer. */
export * from "./Backoff.js";
export * from "./Consumer.js";
export * from "./OutboxRelay.js";
export * from "./JobRunner.js";
export * from "./RealtimeConsumer.js";
export * from "./Worker.js";
