// Every check of `portico doctor`, in the order a host meets what it checks: pure functions from the
// answers gathered to findings, so that each is tested without a server.
import { discoveryCors, contactCors } from './checks-browsers.js';
import { appResource, challenge, challengeMetadata, ERAS, toolsList } from './checks-mcp.js';
import { authorizationServer, endpointAnswers, resourceMetadata } from './checks-metadata.js';
import { proxy } from './checks-proxy.js';
import { reach, time, transportSecurity } from './checks-transport.js';
import type { Finding } from './finding.js';
import type { Observations } from './gather.js';

/** The findings, one per check, of a deployment that answered (`answered`); `now` (ms since the epoch) dates the certificate. */
export function checks(seen: Observations, now: number): Finding[] {
  return [
    reach(seen),
    transportSecurity(seen, now),
    time(seen),
    resourceMetadata(seen, ''),
    resourceMetadata(seen, '/mcp'),
    resourceMetadata(seen, '/api/contact'),
    ...authorizationServer(seen),
    ...endpointAnswers(seen),
    challenge(seen),
    challengeMetadata(seen),
    ...ERAS.map((era) => toolsList(seen, era)),
    appResource(seen),
    discoveryCors(seen),
    ...contactCors(seen),
    proxy(seen),
  ];
}
