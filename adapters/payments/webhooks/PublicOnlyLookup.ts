/**
 * A DNS lookup for outgoing merchant webhooks that refuses non-public addresses (payments audit
 * O3): registration refuses literal private hosts (core/payments/WebhookTarget.ts), but a public
 * name may resolve, or later be made to resolve, to the metadata address or a private network.
 * Used as the connection's own `lookup`, the check applies to the very address connected to, so a
 * DNS answer that changes between a check and the connection cannot get past it. Every address
 * of the answer must be public.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { isNonPublicHost } from "../../../core/payments/WebhookTarget.js";

/** What the lookup calls to resolve a name (node:dns `lookup` with `all: true`). */
export type ResolveAll = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: ReadonlyArray<LookupAddress>) => void) => void;

const resolveWithDns: ResolveAll = (hostname, callback) => dnsLookup(hostname, { all: true }, (error, addresses) => callback(error, addresses ?? []));

/** The refusal a connection fails with (its `code` is `ENONPUBLIC`). */
export class NonPublicAddress extends Error {
  readonly code = "ENONPUBLIC";
  constructor(hostname: string) {
    super(`${hostname} resolves to a non-public address`);
    this.name = "NonPublicAddress";
  }
}

/** True when `address` (as DNS answers it) is not a public address. */
export const isNonPublicAddress = (address: LookupAddress): boolean =>
  isNonPublicHost(address.family === 6 ? `[${address.address}]` : address.address);

/** A `lookup` for http(s).request that answers only public addresses, or fails NonPublicAddress. */
export const publicOnlyLookup = (resolve: ResolveAll = resolveWithDns): LookupFunction =>
  ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname, (error, addresses) => {
      if (error !== null) return callback(error, options.all === true ? [] : "", 4);
      const first = addresses[0];
      if (first === undefined || addresses.some(isNonPublicAddress)) return callback(new NonPublicAddress(hostname), options.all === true ? [] : "", 4);
      return options.all === true ? callback(null, addresses) : callback(null, first.address, first.family);
    });
  }) as unknown as LookupFunction;
