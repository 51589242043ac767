// /mcp as a host meets it: the 401 challenge that starts authorization, then tools/list in both protocol
// eras and the MCP App's resource, asked anonymously.
import { documentOf, skipped, verdict, type Finding } from './finding.js';
import { appResourceUri, challengeParameters, jsonObject, LEGACY_VERSION, MODERN_VERSION, named, toolsOf, type Era, type Observations } from './gather.js';
import type { Answer } from './probe.js';
import { publicUrlFix } from './checks-metadata.js';
import { difference, shortUrl, wellKnownUrl } from './urls.js';

type Problem = { message: string; fix: string };

/** The Host /mcp refused (D3, DNS-rebinding defence), from its 403's description; undefined otherwise. */
export function refusedHost(answer: Answer | undefined): string | undefined {
  if (answer?.status !== 403) return undefined;
  const description = jsonObject(answer.body)?.error_description;
  return typeof description === 'string' ? /^Host (\S+) is not this server/.exec(description)?.[1] : undefined;
}

/** How a refusal of /mcp reads, for the checks that hit it. */
function refusal(answer: Answer, seen: Observations): Problem {
  const host = refusedHost(answer);
  if (host !== undefined) return { message: `${named(answer, seen.target.origin)} is refused: 403, Host ${host} is not this server`, fix: 'see the proxy check' };
  const body = jsonObject(answer.body);
  const said =
    typeof body?.error_description === 'string'
      ? body.error_description
      : typeof (body?.error as { message?: unknown } | undefined)?.message === 'string'
        ? (body!.error as { message: string }).message
        : '';
  return {
    message: `${named(answer, seen.target.origin)} answers ${answer.status}${said ? `: ${said}` : ''}`,
    fix: answer.status === 404 ? 'the proxy must pass /mcp to Portico' : 'see the node log for the request',
  };
}

/**
 * An unknown token gets 401 with a Bearer challenge (RFC 6750 section 3) naming the resource's metadata
 * (RFC 9728 section 5.1) and the scope to ask for (MCP 2026-07-28, "Scope Selection Strategy").
 */
export function challenge(seen: Observations): Finding {
  const check = 'challenge';
  const answer = seen.challenge;
  const { target } = seen;
  if (!answer) return skipped(check, 'not asked');
  if (answer.failure) return { check, status: 'fail', ms: answer.ms, message: `POST /mcp with an unknown token: ${answer.failure.message}`, fix: 'see the time check' };
  const problems: Problem[] = [];
  const params = challengeParameters(answer.headers['www-authenticate']);
  if (answer.status === 200) {
    problems.push({
      message: 'POST /mcp with an unknown Bearer token answers 200, as if no token were sent',
      fix: 'the proxy drops the Authorization header: pass it on to Portico (nginx passes it unless told otherwise)',
    });
  } else if (answer.status !== 401) {
    problems.push(refusal(answer, seen));
  } else if (!params) {
    problems.push({ message: `401 without a Bearer challenge (WWW-Authenticate: ${answer.headers['www-authenticate'] ?? 'none'})`, fix: 'the proxy must pass WWW-Authenticate from Portico as it is' });
  } else {
    const expected = wellKnownUrl(`${target.base}/mcp`, 'oauth-protected-resource');
    const metadata = params.resource_metadata;
    if (metadata === undefined)
      problems.push({ message: 'the challenge names no resource_metadata: hosts must guess where the metadata is', fix: 'the proxy must pass WWW-Authenticate from Portico as it is' });
    else if (difference(expected, metadata)) problems.push({ message: `resource_metadata is ${metadata}, not ${expected}`, fix: publicUrlFix(target) });
    if (!params.scope) problems.push({ message: 'the challenge names no scope: hosts cannot tell which to ask for', fix: 'the proxy must pass WWW-Authenticate from Portico as it is' });
  }
  const metadata = params?.resource_metadata === undefined ? '' : shortUrl(params.resource_metadata, target.origin);
  return verdict(check, [answer], problems, `POST /mcp with an unknown token: 401, Bearer scope="${params?.scope}", resource_metadata ${metadata}`);
}

/** The metadata the challenge names answers, for /mcp (RFC 9728 section 3.3 again, now from the challenge). */
export function challengeMetadata(seen: Observations): Finding {
  const check = 'challenge metadata';
  const { target } = seen;
  const read = documentOf(check, seen.challengeMetadata, target.origin);
  if ('finding' in read) return read.finding;
  const expected = `${target.base}/mcp`;
  const resource = read.document.resource;
  const problems = difference(expected, resource) ? [{ message: `resource is ${String(resource)}, not ${expected}`, fix: publicUrlFix(target) }] : [];
  return verdict(check, [seen.challengeMetadata], problems, `the challenge's resource_metadata answers, for ${expected}`);
}

/** tools/list, anonymous, in one era: contact_service is listed with its MCP App. */
export function toolsList(seen: Observations, era: Era): Finding {
  const check = `tools/list ${era}`;
  const answer = seen.toolsList?.[era];
  if (!answer) return skipped(check, 'not asked');
  if (answer.failure) return { check, status: 'fail', ms: answer.ms, message: `POST /mcp tools/list (${era}): ${answer.failure.message}`, fix: 'see the time check' };
  const problems: Problem[] = [];
  const tools = toolsOf(answer);
  if (answer.status !== 200) problems.push(refusal(answer, seen));
  else if (!tools)
    problems.push({
      message: `tools/list (${era}) answers without a list of tools: ${answer.body.slice(0, 200)}`,
      fix: era === MODERN_VERSION ? `upgrade Portico: this one does not speak ${MODERN_VERSION}` : 'see the node log for the request',
    });
  else if (!tools.some((t) => t.name === 'contact_service'))
    problems.push({ message: `tools/list (${era}) does not list contact_service`, fix: 'is this Portico? the URL may lead to another server' });
  else if (!appResourceUri(answer)) problems.push({ message: `contact_service names no MCP App resource (_meta.ui.resourceUri)`, fix: 'upgrade Portico: this one has no contact-form app' });
  const uri = appResourceUri(answer);
  return verdict(check, [answer], problems, `anonymous tools/list (${era}) lists contact_service with its app ${uri}`);
}

/** The app's resource answers resources/read with an MCP App page (MCP Apps: text/html;profile=mcp-app). */
export function appResource(seen: Observations): Finding {
  const check = 'app resource';
  const answer = seen.appResource;
  if (!answer) return skipped(check, 'not asked: no tools/list answer named it');
  if (answer.failure) return { check, status: 'fail', ms: answer.ms, message: `resources/read: ${answer.failure.message}`, fix: 'see the time check' };
  if (answer.status !== 200) return verdict(check, [answer], [refusal(answer, seen)], '');
  const contents = (jsonObject(answer.body)?.result as { contents?: unknown } | undefined)?.contents;
  const first = (Array.isArray(contents) ? contents[0] : undefined) as { uri?: unknown; mimeType?: unknown; text?: unknown } | undefined;
  const problems: Problem[] = [];
  if (!first || typeof first.text !== 'string' || !first.text) problems.push({ message: `resources/read answers no page: ${answer.body.slice(0, 200)}`, fix: 'see the node log for the request' });
  else if (first.mimeType !== 'text/html;profile=mcp-app')
    problems.push({ message: `the app's page is ${String(first.mimeType)}, not text/html;profile=mcp-app: hosts will not render it`, fix: 'upgrade Portico' });
  const size = first && typeof first.text === 'string' ? `${Math.round(Buffer.byteLength(first.text) / 1024)} KB` : '';
  return verdict(check, [answer], problems, `resources/read ${String(first?.uri)} answers the app's page (text/html;profile=mcp-app, ${size})`);
}

export const ERAS: readonly Era[] = [LEGACY_VERSION, MODERN_VERSION];
