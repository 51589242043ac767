// Runs in every test file: a response that the OpenAPI document does not describe fails the test
// that caused it: the document must match every response.
import { afterEach } from 'vitest';
import { checkFetchedResponses, takeViolations } from './openapi-contract.js';

checkFetchedResponses();

afterEach(() => {
  const violations = [...new Set(takeViolations())];
  if (violations.length) throw new Error(`responses the OpenAPI document does not describe:\n  ${violations.join('\n  ')}`);
});
