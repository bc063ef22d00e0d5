// The gateway suites' way to the reference v1 service: started as every suite starts it (port 0,
// in-memory SQLite, known keys and organizations) and spoken to directly, to set up and read back
// what the gateway should show. Both come from the package's testing entry; the check of each
// response against the OpenAPI document belongs to the service's own suites.
export { startTestV1, TEST_KEYS, TEST_ORGANIZATIONS, v1Request, type TestV1, type V1Response } from 'reference-service/testing';
