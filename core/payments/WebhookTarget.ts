/**
 * Whether a merchant webhook URL's host is one the server must not send to (payments audit O3:
 * a signed POST to the cloud metadata address or a private network is a request forgery). The
 * host is as the WHATWG URL parser leaves it: IPv4 in any notation is already a dotted quad,
 * IPv6 is bracketed and compressed. Literal addresses of loopback, private, link-local, shared,
 * multicast, reserved and unspecified ranges, and names reserved for local use, are refused.
 * A public name whose DNS answer is private is caught at connect time
 * (adapters/payments/webhooks/PublicOnlyLookup.ts).
 */

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

// [first octet, second octet low, second octet high] of each refused IPv4 range (by /8 and /16 steps).
const refusedIpv4 = (a: number, b: number, c: number): boolean =>
  a === 0 || // "this network" and 0.0.0.0
  a === 10 ||
  a === 127 ||
  (a === 100 && b >= 64 && b <= 127) || // shared address space (carrier NAT)
  (a === 169 && b === 254) || // link-local, the cloud metadata address
  (a === 172 && b >= 16 && b <= 31) ||
  (a === 192 && b === 168) ||
  (a === 192 && b === 0 && c === 0) || // IETF protocol assignments
  (a === 192 && b === 0 && c === 2) || // documentation (TEST-NET-1)
  (a === 198 && b === 51 && c === 100) || // documentation (TEST-NET-2)
  (a === 203 && b === 0 && c === 113) || // documentation (TEST-NET-3)
  (a === 198 && (b === 18 || b === 19)) || // benchmarking
  a >= 224; // multicast, reserved, broadcast

const ipv4Refused = (host: string): boolean | undefined => {
  const match = ipv4.exec(host);
  if (match === null) return undefined;
  const [a, b, c] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return refusedIpv4(a, b, c);
};

// The 16-bit groups of a compressed IPv6 address (without brackets; a trailing dotted quad is two
// groups, as DNS writes IPv4-mapped answers), or undefined for anything else.
const ipv6Groups = (text: string): ReadonlyArray<number> | undefined => {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] | undefined => {
    if (part === "") return [];
    const groups: number[] = [];
    const pieces = part.split(":");
    for (const [i, piece] of pieces.entries()) {
      const quad = i === pieces.length - 1 ? ipv4.exec(piece) : null;
      if (quad !== null) {
        const [a, b, c, d] = [Number(quad[1]), Number(quad[2]), Number(quad[3]), Number(quad[4])];
        if ([a, b, c, d].some((x) => x > 255)) return undefined;
        groups.push((a << 8) | b, (c << 8) | d);
      } else if (/^[0-9a-f]{1,4}$/.test(piece)) groups.push(Number.parseInt(piece, 16));
      else return undefined;
    }
    return groups;
  };
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if (head === undefined || tail === undefined) return undefined;
  const groups = halves.length === 2 ? [...head, ...Array<number>(Math.max(0, 8 - head.length - tail.length)).fill(0), ...tail] : head;
  return groups.length === 8 ? groups : undefined;
};

const ipv6Refused = (host: string): boolean | undefined => {
  if (!host.startsWith("[") || !host.endsWith("]")) return undefined;
  const groups = ipv6Groups(host.slice(1, -1));
  if (groups === undefined) return true; // not an address this parser reads: refuse rather than guess
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const embeddedV4 = (): boolean => refusedIpv4(g6 >> 8, g6 & 0xff, g7 >> 8);
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return true; // ::, ::1 and IPv4-compatible ::/96 (deprecated)
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return embeddedV4(); // IPv4-mapped
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return true; // IPv4-translated ::ffff:0:0:0/96 (SIIT)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return embeddedV4(); // NAT64 well-known prefix
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true; // local-use NAT64 64:ff9b:1::/48
  if (g0 === 0x2002) return refusedIpv4(g1 >> 8, g1 & 0xff, g2 >> 8); // 6to4 embeds its IPv4 in bits 16-47
  if (g0 === 0x2001 && g1 === 0) return true; // Teredo (embeds an obfuscated IPv4)
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local
  if ((g0 & 0xffc0) === 0xfec0) return true; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return true; // documentation
  return false;
};

const localNames = ["localhost", "local", "internal", "home.arpa"];

/** True when `hostname` (as `new URL(...).hostname` gives it) must not receive webhooks over https. */
export const isNonPublicHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  const literal = ipv4Refused(host) ?? ipv6Refused(host);
  if (literal !== undefined) return literal;
  return !host.includes(".") || localNames.some((name) => host === name || host.endsWith(`.${name}`));
};

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True when `hostname` (as `new URL(...).hostname` gives it) names the loopback interface. */
export const isLoopbackHost = (hostname: string): boolean => loopbackHosts.has(hostname.toLowerCase());

/**
 * Why `url` may not receive merchant webhooks, or null when it may: https to a public host, or
 * plain http to the loopback interface when the host allows it (development only, security
 * audit S1). Checked at registration and again before every attempt.
 */
export const webhookUrlRefusal = (url: URL, allowLoopbackHttp: boolean): string | null => {
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  if (url.protocol === "https:") {
    return isNonPublicHost(url.hostname) ? "must name a public host (not a loopback, private, link-local or local-use address)" : null;
  }
  if (url.protocol === "http:" && allowLoopbackHttp && isLoopbackHost(url.hostname)) return null;
  return allowLoopbackHttp ? "must use https (http only on the loopback interface)" : "must use https";
};

/** True when the stored URL `raw` may be called now (an unparsable one may not). */
export const webhookUrlAllowed = (raw: string, allowLoopbackHttp: boolean): boolean => {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  return url !== null && webhookUrlRefusal(url, allowLoopbackHttp) === null;
};
