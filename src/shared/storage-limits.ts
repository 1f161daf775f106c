/** Bounds of the storage layer that the options and the REST routes share. */

/** Most replicas a file may ask for. */
export const MAX_REDUNDANCY = 16;
