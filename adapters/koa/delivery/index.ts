/** Every route of the food delivery module (paths without the mount prefix; the host adds it). */
export const deliveryRoutes = [];
