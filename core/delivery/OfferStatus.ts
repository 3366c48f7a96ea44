/**
 * The courier offer state machine: an offer is accepted, lost to another courier, or expires;
 * an accepted offer is lost when a dispatcher reassigns its delivery to another courier.
 */
import type { OfferStatus } from "./model/CourierOffer.js";

export const offerTransitions: Readonly<Record<OfferStatus, ReadonlyArray<OfferStatus>>> = {
  offered: ["accepted", "lost", "expired"],
  accepted: ["lost"],
  lost: [],
  expired: [],
};

export const canMoveOffer = (from: OfferStatus, to: OfferStatus): boolean => offerTransitions[from].includes(to);
