/**
 * What the tests' controllers may reach although it is loopback or this host's own (README,
 * "Outgoing requests"): the receivers, s3rver and local registries listen on loopback, and the
 * fleets' registries on this host's bridge address (10.250.<id>.1). A module of its own, so a
 * test that spawns a controller does not load the service to know it.
 */
export const TEST_ALLOW_LIST = '127.0.0.1,10.250.0.0/16';
