/** Request bodies of the courier and delivery endpoints. */
import { Schema } from "effect";
import { RequestTime } from "../RequestTime.js";

/** Body of POST /couriers. */
export const RegisterCourierBody = Schema.Struct({ name: Schema.String });

const SampleBody = Schema.Struct({ lat: Schema.Number, lng: Schema.Number, recorded_at: RequestTime });

/** Body of POST /couriers/me/locations: a batch of 1 to 100 samples. */
export const LocationsBody = Schema.Struct({ samples: Schema.Array(SampleBody).pipe(Schema.maxItems(100)) });

/** Body of PATCH /deliveries/:id/status: the transition id, the target state and the expected version (required: spec, States). */
export const DeliveryStatusBody = Schema.Struct({
  transition_id: Schema.String,
  /** A delivery status; an unknown one answers 422 unknown_delivery_status. */
  status: Schema.String,
  expected_version: Schema.Int,
});
