// The contact_service tool: the ContactRequest schema minus the browser-only fields, and the same submit path.
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { AppError } from '../../errors.js';
import { describeIssues, issueFields, validate, type Issues } from '../common/schema-issues.js';
import { ContactRequest } from '../contact/schema.js';
import { submitInquiry, type ContactDeps } from '../contact/submit.js';

export const CONTACT_TOOL = 'contact_service';

/** D2: the tool's input is ContactRequest without turnstileToken and website, so limits cannot drift. */
export const ContactToolInput = ContactRequest.omit({ turnstileToken: true, website: true });
export type ContactToolInput = z.output<typeof ContactToolInput>;

/** The tool's arguments as its callback gets them: valid, or refused with the schema's issues. */
export type ContactToolArguments = { input: ContactToolInput; issues?: undefined } | { input?: undefined; issues: Issues };

/**
 * The input schema the SDK is given: ContactToolInput's JSON Schema for tools/list, and a validation that
 * hands the verdict to the callback instead of failing, so that a refusal by validation is a tool result
 * like every other refusal, with `structuredContent.error` (docs/mcp.md). The SDK's own answer to a
 * failed validation is a bare text. Both are Standard Schema's public interfaces.
 */
export const ContactToolArguments: StandardSchemaWithJSON<ContactToolInput, ContactToolArguments> = {
  '~standard': {
    version: 1,
    vendor: 'portico',
    validate: (value) => {
      const result = validate(ContactToolInput, value);
      return { value: result.issues ? { issues: result.issues } : { input: result.value as ContactToolInput } };
    },
    jsonSchema: ContactToolInput['~standard'].jsonSchema,
  },
};

/**
 * The structuredContent of every result, sent or refused (MCP 2025-11-25, "Output Schema"): a host that
 * validates structured results, or shows them, has the shape of each outcome (docs/mcp.md).
 */
export const ContactToolOutput = z.object({
  ok: z.boolean().describe('true when the inquiry was delivered to the team'),
  error: z.string().optional().describe('why it was not sent: an error code of docs/errors.md, as POST /api/contact answers it'),
  retryAfterSeconds: z.number().int().min(0).optional().describe('for a refusal that passes (a quota, a busy node, a store that cannot write): when to call again'),
  fields: z.array(z.string()).optional().describe('for invalid_request: the arguments at fault'),
});

export const CONTACT_TOOL_DESCRIPTION = [
  'Send a sales, demo or support inquiry to the team behind the community and property management software.',
  'Use it when the person wants to be contacted: a demo, pricing, a question about the product, or help with an account.',
  'name: who is writing (up to 120 characters). email: where the team should reply (up to 254). message: what they need,',
  'in their own words (up to 5000). locale: the language to answer in: es, en, ca, ru, eu or gl (default es).',
  'topic: sales, demo or support when the person says what it is about; leave it out otherwise.',
  'privacy: true only when the person has accepted the privacy policy; never set it on their behalf without asking.',
  'consentText: leave it out; the contact form app sends the words it showed beside its checkbox.',
].join(' ');

/** Who is calling, carried from the HTTP request into the tool callback. */
export interface Caller {
  remoteIp: string;
  clientId: string | null;
  /** The HTTP Idempotency-Key of the tools/call request, as on POST /api/contact (D8). */
  idempotencyKey: string | undefined;
  /** The request's User-Agent and Referer, for a remote spam check (D20). */
  userAgent?: string | undefined;
  referrer?: string | undefined;
}

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The contact_service tool's callback, with its arguments as ContactToolArguments judged them. A refusal
 * (invalid arguments, a quota, any AppError) is a result with isError, never thrown.
 */
export async function callContactTool(deps: ContactDeps, { input, issues }: ContactToolArguments, caller: Caller): Promise<ToolResult> {
  // The same code and words as POST /api/contact's 400, and the fields at fault for a form to mark.
  if (issues) return failure('invalid_request', `The inquiry was not sent: ${describeIssues(issues)}.`, { fields: issueFields(issues) });
  // D14: an inquiry is an inquiry whichever door it comes through. Anonymous callers draw on their address's
  // contact quota, shared with POST /api/contact; Bearer callers on their client's own.
  const throttled = caller.clientId === null ? await deps.limiter.hit('contact', { address: caller.remoteIp }) : await deps.limiter.hit('contact-client', { clientId: caller.clientId });
  if (throttled) {
    const who = caller.clientId === null ? 'this address' : 'this client';
    const text = `The inquiry was not sent: ${who} may send ${throttled.max} inquiries every ${throttled.windowSeconds / 60} minutes; retry in ${throttled.retryAfterSeconds} s.`;
    return failure('rate_limited', text, { retryAfterSeconds: throttled.retryAfterSeconds });
  }
  try {
    await submitInquiry(deps, {
      request: input,
      channel: 'mcp',
      remoteIp: caller.remoteIp,
      clientId: caller.clientId,
      // Agents cannot solve Turnstile; the contact quota above stands in for it (contract section 5, D14).
      authenticated: true,
      idempotencyKey: caller.idempotencyKey,
      userAgent: caller.userAgent,
      referrer: caller.referrer,
    });
  } catch (error) {
    if (error instanceof AppError) {
      const retryAfter = error.headers['Retry-After'];
      return failure(error.code, `The inquiry was not sent: ${error.description}.`, retryAfter === undefined ? {} : { retryAfterSeconds: Number(retryAfter) });
    }
    throw error;
  }
  return {
    content: [{ type: 'text', text: `The inquiry from ${input.name} was delivered to the team; they will reply to ${input.email}.` }],
    structuredContent: { ok: true },
  };
}

const failure = (code: string, text: string, details: Record<string, unknown> = {}): ToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: { ok: false, error: code, ...details },
  isError: true,
});
