/** Request bodies of the platform operator routes. */
import { Schema } from "effect";

/** Body of both steps: why (audited). */
export const ReplayReasonBody = Schema.Struct({ reason: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)) });

/** Body of POST /v1/operator/reconciliation-exceptions/:id/resolve: why the item is acknowledged (audited). */
export const PlatformResolutionBody = Schema.Struct({ reason: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)) });
