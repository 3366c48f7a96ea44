/**
 * One authenticated websocket and its subscriptions. Control messages (subscribe, unsubscribe,
 * access re-checks) run one at a time per connection, so a re-check that follows a subscribe
 * always sees it. Event delivery runs per subscription: it reads the channel log from the last
 * offset it sent, so notices may arrive late, twice or out of order without causing a gap or a
 * duplicate.
 */
import { Effect } from "effect";
import WebSocket from "ws";
import { ChannelAuthorizers, ChannelLog } from "../../ports/Realtime.js";
import { closeCodeSlowConsumer, parseChannel, type ServerMessage, type UnsubscribeReason } from "./Protocol.js";
import type { AuthenticatedPrincipal } from "./UpgradeAuthentication.js";

/** A retained message ready to send: its offset and its `event` frame, serialized once. */
export interface EncodedMessage {
  readonly offset: number;
  /** The UTF-8 bytes of `{"type":"event","channel","offset","event"}`, shared by every subscriber. */
  readonly frame: Buffer;
}

/** A page of a channel's log as every subscriber at the same offset shares it. */
export interface EncodedPage {
  readonly messages: ReadonlyArray<EncodedMessage>;
  readonly resync: boolean;
}

/** Encodes one event frame (the server's message format, serialized once for all sockets). */
export const encodeEvent = (channel: string, offset: number, event: unknown): Buffer =>
  Buffer.from(JSON.stringify({ type: "event", channel, offset, event }));

/** What a connection needs from its server. */
export interface ConnectionContext {
  readonly run: <A>(effect: Effect.Effect<A, unknown, ChannelLog | ChannelAuthorizers>) => Promise<A>;
  /**
   * Reads the channel log after `since`, encoded; concurrent reads of the same page (every
   * subscriber of a channel woken by one notice) share one query and one serialization.
   */
  readonly readPage: (channel: string, since: number, limit: number) => Promise<EncodedPage>;
  readonly maxSubscriptions: number;
  readonly pageSize: number;
  /** Unsent bytes a socket may hold; past it the socket is closed as a slow consumer. */
  readonly maxBufferedBytes: number;
  readonly onSubscribed: (connection: RealtimeConnection, channel: string) => void;
  readonly onUnsubscribed: (connection: RealtimeConnection, channel: string) => void;
  readonly warn: (message: string, fields: Record<string, unknown>) => void;
}

/** One channel subscription and its delivery cursor. */
class Subscription {
  /** The offset of the last event sent (or the starting point). */
  lastOffset = 0;
  /** False until the `subscribed` answer is out; notices only mark it dirty before that. */
  live = false;
  pumping = false;
  dirty = false;
  ended = false;
  constructor(
    readonly channel: string,
    readonly kind: string,
    readonly id: string,
  ) {}
}

/** An authenticated socket with its subscriptions. */
export class RealtimeConnection {
  /** Cleared on every heartbeat, set again by the client's pong. */
  alive = true;
  private readonly subscriptions = new Map<string, Subscription>();
  private control: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly socket: WebSocket,
    readonly principal: AuthenticatedPrincipal,
    /** The epoch of the token (or the user's epoch at connect time when the token had none). */
    readonly epoch: number | null,
    private readonly context: ConnectionContext,
  ) {}

  /** The user behind the connection, for revocation; null for merchants and systems. */
  get userId(): string | null {
    return this.principal.kind === "user" ? this.principal.userId : null;
  }

  /** The channels this connection currently follows. */
  channels(): ReadonlyArray<string> {
    return [...this.subscriptions.keys()];
  }

  /** Sends one protocol message if the socket is still open. */
  send(message: ServerMessage): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify(message));
    this.closeIfSlow();
  }

  /** Sends an already encoded text frame if the socket is still open. */
  sendFrame(frame: Buffer): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(frame, { binary: false });
    this.closeIfSlow();
  }

  /**
   * A client that stops reading leaves every frame in this process's memory once the kernel's
   * buffers are full. Past the bound the socket is closed (1013 `slow_consumer`) and its
   * subscriptions end at once, so nothing more is read or queued for it; the close frame waits
   * behind what is queued, and ws destroys the socket if the client never reads it (30 s).
   * Everything sent was in offset order from the client's `since`, so it resumes without a gap.
   */
  private closeIfSlow(): void {
    if (this.socket.bufferedAmount <= this.context.maxBufferedBytes || this.closed) return;
    this.context.warn("realtime slow consumer closed", { buffered_bytes: this.socket.bufferedAmount });
    this.socket.close(closeCodeSlowConsumer, "slow_consumer");
    this.dispose();
  }

  /** Queues a control step behind the previous ones. */
  enqueue(step: () => Promise<void>): void {
    this.control = this.control.then(step).catch((error: unknown) => {
      this.context.warn("realtime control step failed", { error: String(error) });
    });
  }

  /** Resolves once every queued control step has run (used by close and tests). */
  settled(): Promise<void> {
    return this.control;
  }

  /** Handles `subscribe`: authorize, register, answer, then catch up from `since`. */
  async subscribe(channel: string, since: number | null): Promise<void> {
    if (this.closed) return;
    const existing = this.subscriptions.get(channel);
    if (existing !== undefined) {
      // Subscribing twice is harmless: answer with where the subscription stands.
      this.send({ type: "subscribed", channel, offset: existing.lastOffset });
      return;
    }
    const name = parseChannel(channel);
    if (name === null) {
      this.send({ type: "error", channel, code: "validation_failed", detail: "channel must be <kind>:<id>" });
      return;
    }
    if (this.subscriptions.size >= this.context.maxSubscriptions) {
      this.send({ type: "error", channel, code: "too_many_subscriptions" });
      return;
    }
    // An unknown kind and a refusal answer alike, so a client never learns what exists.
    if (!(await this.authorize(name.kind, name.id))) {
      this.send({ type: "error", channel, code: "not_found" });
      return;
    }
    if (this.closed) return;
    const subscription = new Subscription(channel, name.kind, name.id);
    // Registered before the head is read, so no notice between the two is lost.
    this.subscriptions.set(channel, subscription);
    this.context.onSubscribed(this, channel);
    const head = await this.context.run(
      Effect.flatMap(ChannelLog, (log) => log.head(channel)),
    );
    if (subscription.ended) return;
    const resync = since !== null && since > head;
    subscription.lastOffset = since === null || resync ? head : since;
    this.send({ type: "subscribed", channel, offset: head });
    // A `since` beyond the head comes from another log (or a reset one): the client must reload.
    if (resync) this.send({ type: "resync", channel, offset: head });
    subscription.live = true;
    this.pump(subscription);
  }

  /** Handles `unsubscribe` (always answered, even for a channel not followed). */
  async unsubscribe(channel: string): Promise<void> {
    this.drop(channel, "client");
  }

  /** Reacts to a `message` notice: deliver what the subscription has not seen yet. */
  notify(channel: string, offset: number): void {
    const subscription = this.subscriptions.get(channel);
    if (subscription === undefined || offset <= subscription.lastOffset) return;
    this.pump(subscription);
  }

  /** Re-runs the authorizer for the subscriptions (all, or one channel); drops the refused ones. */
  async recheck(channel: string | undefined): Promise<void> {
    const targets = [...this.subscriptions.values()].filter((s) => channel === undefined || s.channel === channel);
    for (const subscription of targets) {
      if (this.closed || subscription.ended) continue;
      const allowed = await this.authorize(subscription.kind, subscription.id);
      if (!allowed) this.drop(subscription.channel, "access_revoked");
    }
  }

  /** Ends every subscription; the socket is being closed. */
  dispose(): void {
    this.closed = true;
    for (const channel of this.channels()) {
      const subscription = this.subscriptions.get(channel);
      if (subscription) subscription.ended = true;
      this.subscriptions.delete(channel);
      this.context.onUnsubscribed(this, channel);
    }
  }

  private drop(channel: string, reason: UnsubscribeReason): void {
    const subscription = this.subscriptions.get(channel);
    if (subscription !== undefined) {
      subscription.ended = true;
      this.subscriptions.delete(channel);
      this.context.onUnsubscribed(this, channel);
    }
    this.send({ type: "unsubscribed", channel, reason });
  }

  /** Fails closed: an authorizer that errors refuses. */
  private async authorize(kind: string, id: string): Promise<boolean> {
    try {
      return await this.context.run(
        Effect.gen(this, function* () {
          const authorizer = (yield* ChannelAuthorizers).forKind(kind);
          if (authorizer === undefined) return false;
          return yield* authorizer.authorize(this.principal, id);
        }),
      );
    } catch (error) {
      this.context.warn("channel authorizer failed", { kind, error: String(error) });
      return false;
    }
  }

  /** Starts delivery unless it is running; a running delivery goes round once more. */
  private pump(subscription: Subscription): void {
    if (!subscription.live || subscription.ended) return;
    if (subscription.pumping) {
      subscription.dirty = true;
      return;
    }
    subscription.pumping = true;
    void (async () => {
      try {
        do {
          subscription.dirty = false;
          await this.drain(subscription);
        } while (subscription.dirty && !subscription.ended);
      } catch (error) {
        // The next notice retries from the same offset, so nothing is skipped.
        this.context.warn("realtime delivery failed", { channel: subscription.channel, error: String(error) });
      } finally {
        subscription.pumping = false;
      }
    })();
  }

  /** Sends every retained message after the subscription's offset, in offset order. */
  private async drain(subscription: Subscription): Promise<void> {
    const { pageSize } = this.context;
    for (;;) {
      const page = await this.context.readPage(subscription.channel, subscription.lastOffset, pageSize);
      if (subscription.ended) return;
      if (page.resync) {
        const head = await this.context.run(
          Effect.flatMap(ChannelLog, (log) => log.head(subscription.channel)),
        );
        if (subscription.ended) return;
        subscription.lastOffset = Math.max(subscription.lastOffset, head);
        this.send({ type: "resync", channel: subscription.channel, offset: subscription.lastOffset });
        continue;
      }
      for (const message of page.messages) {
        if (message.offset <= subscription.lastOffset) continue;
        subscription.lastOffset = message.offset;
        this.sendFrame(message.frame);
      }
      if (page.messages.length < pageSize) return;
    }
  }
}
