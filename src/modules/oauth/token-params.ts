// The token endpoint's parameters (the contract's TokenRequest), each a single string.
import * as z from 'zod';

// A repeated parameter arrives as an array; RFC 6749 section 3.2 forbids repeats.
const param = (name: string) => z.string({ error: (issue) => (Array.isArray(issue.input) ? `${name} must not be repeated` : `${name} must be a string`) }).optional();

// RFC 6749 section 3.2: unrecognized parameters are ignored, so the object is loose.
export const TokenRequest = z
  .looseObject({
    grant_type: param('grant_type'),
    client_id: param('client_id'),
    client_secret: param('client_secret'),
    scope: param('scope'),
    code: param('code'),
    redirect_uri: param('redirect_uri'),
    code_verifier: param('code_verifier'),
    refresh_token: param('refresh_token'),
    // RFC 8707 section 2 allows several; the grants answer invalid_target, as tokens bind one (D4).
    resource: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .meta({
        description: "RFC 8707: the resource the token is for, as a protected-resource document names it: the API as a whole (the server's base URL, the default), {base}/api/contact or {base}/mcp.",
      }),
  })
  .meta({ id: 'TokenRequest', examples: [{ grant_type: 'client_credentials', scope: 'contact:write', resource: 'https://api.example.com/api/contact' }] });
export type TokenParams = z.output<typeof TokenRequest>;

/** RFC 6749 section 3.1: "Parameters sent without a value MUST be treated as if they were omitted". */
export function omitEmpty<T extends object>(params: T): T {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== '')) as T;
}
