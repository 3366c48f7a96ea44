/**
 * Substitutions (spec: should-have): the restaurant proposes to replace an order line with another
 * item; the customer reads, accepts or refuses. The line's price never changes: the customer is
 * never charged more than the authorization.
 */
import { Effect, Schema } from "effect";
import { decideSubstitution } from "../../../core/delivery/DecideSubstitution.js";
import { listSubstitutions } from "../../../core/delivery/ListSubstitutions.js";
import { SubstitutionWire } from "../../../core/delivery/model/Substitution.js";
import { MenuItemId } from "../../../core/delivery/model/Ids.js";
import { proposeSubstitution } from "../../../core/delivery/ProposeSubstitution.js";
import { PageOf } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { OrderParams, SubstitutionParams } from "./RestaurantSchemas.js";
import { idOf } from "../RouteIds.js";

const tags = ["delivery"];

/** Body of POST /restaurant-orders/:id/substitutions. */
export const ProposeSubstitutionBody = Schema.Struct({
  line_no: Schema.Int,
  item_id: idOf(MenuItemId),
  reason: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(500)))),
});

const noStore = { "Cache-Control": "no-store" };

const proposeRoute = defineRoute({
  method: "POST",
  path: "/restaurant-orders/:id/substitutions",
  operationId: "proposeSubstitution",
  summary: "Propose to replace an order line with another item (restaurant staff)",
  description:
    "Staff of the owning restaurant (else 404), on an authorized or accepted order before pickup (else 409 substitution_not_allowed); item_id an available item of the current menu other than the line's (else 422). One substitution per line (409 substitution_conflict). The line keeps its price: charged_line_total_minor is the original, so the customer is never charged more than authorized.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: OrderParams,
  body: ProposeSubstitutionBody,
  responses: { 201: SubstitutionWire },
  problems: [404, 409, 422],
  handler: ({ principal, params, body }) =>
    proposeSubstitution(principal, params.id, { lineNo: body.line_no, replacementItemId: body.item_id, reason: body.reason ?? null }).pipe(
      Effect.map((substitution) => ({ status: 201, body: substitution })),
    ),
});

const listRoute = defineRoute({
  method: "GET",
  path: "/orders/:id/substitutions",
  operationId: "listSubstitutions",
  summary: "List the substitutions proposed on the caller's order",
  description: "The order's customer only (else 404); by line, one page.",
  tags,
  auth: "required",
  params: OrderParams,
  responses: { 200: PageOf(SubstitutionWire) },
  problems: [404],
  handler: ({ principal, params }) => listSubstitutions(principal, params.id).pipe(Effect.map((page) => ({ status: 200, body: page, headers: noStore }))),
});

const decideRoute = (decision: "accepted" | "refused") =>
  defineRoute({
    method: "POST",
    path: `/orders/:id/substitutions/:substitution_id/${decision === "accepted" ? "accept" : "refuse"}`,
    operationId: decision === "accepted" ? "acceptSubstitution" : "refuseSubstitution",
    summary: decision === "accepted" ? "Accept a proposed substitution (the customer)" : "Refuse a proposed substitution (the customer)",
    description:
      "The order's customer only (else 404), before pickup: once the meal is picked up or delivered, or the order rejected or cancelled, 409 substitution_not_allowed and the substitution stays proposed. Repeating the same decision answers the same substitution; the other decision afterwards is 409 substitution_conflict. The line's price is unchanged either way.",
    tags,
    auth: "required",
    // One transaction, nothing called outside: the key and the answer commit with the work.
    oneTransaction: true,
    params: SubstitutionParams,
    responses: { 200: SubstitutionWire },
    problems: [404, 409],
    handler: ({ principal, params }) =>
      decideSubstitution(principal, params.id, params.substitution_id, decision).pipe(Effect.map((substitution) => ({ status: 200, body: substitution, headers: noStore }))),
  });

/** Every substitution route. */
export const substitutionRoutes = [proposeRoute, listRoute, decideRoute("accepted"), decideRoute("refused")];
