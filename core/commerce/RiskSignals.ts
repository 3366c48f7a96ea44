/**
 * The risk signals of a checkout (spec, commerce Limits: "Rate limits apply by account, IP and
 * checkout risk signals"): the customer's account, the client's network and the e-mail, normalised
 * so that trivial variations are one signal. An IPv4 address is itself; an IPv6 address is its /64
 * (one subscriber's network: its hosts are the caller's for free); an IPv4-mapped IPv6 address is
 * the IPv4 one. An e-mail is lowercased, trimmed and loses a `+tag` of its local part. The
 * client IP is an input of the command (the HTTP adapter's resolved client address).
 */

const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const hextet = /^[0-9a-f]{1,4}$/;

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad is two), or null. */
const ipv6Groups = (text: string): ReadonlyArray<number> | null => {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    for (const piece of part.split(":")) {
      if (ipv4.test(piece)) {
        const [a, b, c, d] = piece.split(".").map(Number) as [number, number, number, number];
        if ([a, b, c, d].some((n) => n > 255)) return null;
        out.push(a * 256 + b, c * 256 + d);
      } else if (hextet.test(piece)) out.push(parseInt(piece, 16));
      else return null;
    }
    return out;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...Array<number>(missing).fill(0), ...tail];
};

/** The network a client address stands for (see the file comment); null for no address. */
export const clientNetwork = (clientIp: string): string | null => {
  const text = clientIp.trim().toLowerCase().replace(/%.*$/, "");
  if (text === "") return null;
  if (ipv4.test(text)) return text;
  const groups = ipv6Groups(text);
  if (groups === null) return text;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
  return `${[g0, g1, g2, g3].map((g) => g.toString(16)).join(":")}::/64`;
};

/** An e-mail as one signal: trimmed, lowercased, without a `+tag` in its local part. */
export const normalisedEmail = (email: string): string => {
  const text = email.trim().toLowerCase();
  const at = text.lastIndexOf("@");
  if (at <= 0) return text;
  const local = text.slice(0, at);
  const plus = local.indexOf("+");
  return `${plus > 0 ? local.slice(0, plus) : local}${text.slice(at)}`;
};

/** What a risk signal stands for; each kind has its own bound (core/commerce/CheckoutRisk.ts). */
export type RiskSignalKind = "account" | "network" | "email";

/** A risk signal before digesting: its kind and its text (the digest's input). */
export interface RiskSignal {
  readonly kind: RiskSignalKind;
  readonly text: string;
}

/**
 * The signals of a checkout (before digesting): the customer's account (a guest has none), its
 * client's network and its e-mail, when given.
 */
export const checkoutRiskSignals = (customerId: string | null, clientIp: string | null, email: string | null): ReadonlyArray<RiskSignal> => {
  const network = clientIp === null ? null : clientNetwork(clientIp);
  return [
    ...(customerId === null ? [] : [{ kind: "account", text: `account:${customerId}` } as const]),
    ...(network === null ? [] : [{ kind: "network", text: `ip:${network}` } as const]),
    ...(email === null ? [] : [{ kind: "email", text: `email:${normalisedEmail(email)}` } as const]),
  ];
};
