/** The courier offer state machine: an offer is accepted, lost to another courier, or expires. */
import type { OfferStatus } from "./model/CourierOffer.js";

export const offerTransitions: Readonly<Record<OfferStatus, ReadonlyArray<OfferStatus>>> = {
  offered: ["accepted", "lost", "expired"],
  accepted: [],
  lost: [],
  expired: [],
};

export const canMoveOffer = (from: OfferStatus, to: OfferStatus): boolean => offerTransitions[from].includes(to);
