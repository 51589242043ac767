// Every response an in-process app sends during the test run is checked against the app's own
// OpenAPI document: the status is documented for the operation, the content type is one it lists,
// the headers it declares have the declared type (and are present when required), and the body
// matches the schema. A mismatch is recorded here and fails the test that caused it (setup.ts).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { parse as parseYaml } from 'yaml';

interface HeaderDoc {
  required?: boolean;
  schema?: object;
}
interface ResponseDoc {
  headers?: Record<string, HeaderDoc>;
  content?: Record<string, { schema?: object }>;
  /** Where this response's schemas live in the document (a JSON pointer), for Ajv. */
  pointer?: string;
}
interface Document {
  paths: Record<string, Record<string, { responses: Record<string, ResponseDoc> }>>;
}

export interface Exchange {
  method: string;
  /** The route's path template; undefined when no route matched (404/405 from the not-found handler). */
  route: string | undefined;
  url: string;
  status: number;
  headers: Record<string, unknown>;
  /** The body as sent; undefined when it is a stream (not read here). */
  body: string | undefined;
}

const violations: string[] = [];

/** The violations recorded since the last call, emptied. */
export function takeViolations(): string[] {
  return violations.splice(0);
}

/** Unmatched requests are answered by the one not-found handler: 404, or 405 with Allow (D9). */
const UNMATCHED: ResponseDoc = { content: { 'application/json': { schema: {} } }, pointer: 'UNMATCHED' };

export class ResponseContract {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    this.ajv.addSchema(document, 'openapi');
  }

  /** What is wrong with this exchange; empty when the document describes it. */
  check(exchange: Exchange): string[] {
    // The pages' own script and style files, the element's digest-named copy, and /docs/: served beside
    // the API, not operations of it.
    if (exchange.route && isAsset(exchange.route)) return [];
    const problems: string[] = [];
    const where = `${exchange.method} ${exchange.url} -> ${exchange.status}`;
    const doc = this.responseDoc(exchange, problems);
    if (!doc) return problems.map((problem) => `${where}: ${problem}`);

    for (const [name, header] of Object.entries(doc.headers ?? {})) {
      const value = exchange.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const schema = header.schema as { type?: string } | undefined;
      if (schema?.type === 'integer' && !/^\d+$/.test(String(value))) problems.push(`header ${name} is not an integer: ${String(value)}`);
    }

    // HEAD: the headers of the GET answer; node:http drops the body (RFC 9110 section 9.3.2).
    if (exchange.method === 'HEAD') return problems.map((problem) => `${where}: ${problem}`);
    const mediaType = String(exchange.headers['content-type'] ?? '')
      .split(';', 1)[0]!
      .trim()
      .toLowerCase();
    const hasBody = exchange.body !== undefined && exchange.body.length > 0;
    if (!doc.content) {
      if (hasBody) problems.push(`a body is sent where the document declares none (${mediaType})`);
      return problems.map((problem) => `${where}: ${problem}`);
    }
    const content = doc.content[mediaType];
    if (!content) {
      problems.push(`content type ${mediaType || '(none)'} is not one of ${Object.keys(doc.content).join(', ')}`);
    } else if (content.schema && exchange.body !== undefined) {
      const parsed = parseBody(mediaType, exchange.body);
      if (parsed.error) problems.push(parsed.error);
      else {
        const validate = this.validator(doc.pointer === 'UNMATCHED' ? 'openapi#/components/schemas/Error' : `${doc.pointer}/content/${escape(mediaType)}/schema`);
        if (!validate(parsed.value)) problems.push(`body does not match the schema: ${this.ajv.errorsText(validate.errors)}; body ${exchange.body.slice(0, 300)}`);
      }
    }
    return problems.map((problem) => `${where}: ${problem}`);
  }

  private responseDoc(exchange: Exchange, problems: string[]): ResponseDoc | undefined {
    const status = String(exchange.status);
    if (exchange.route === undefined) {
      if (status === '404') return UNMATCHED;
      if (status === '405') {
        if (exchange.headers.allow === undefined) problems.push('405 without Allow');
        return UNMATCHED;
      }
      problems.push('no route matched, yet the answer is neither 404 nor 405');
      return undefined;
    }
    const item = this.document.paths[exchange.route];
    // HEAD is answered by the GET route (RFC 9110 section 9.3.2), without a body.
    const method = exchange.method === 'HEAD' ? 'get' : exchange.method.toLowerCase();
    const operation = item?.[method];
    if (!operation) {
      problems.push(`the document has no ${method.toUpperCase()} ${exchange.route}`);
      return undefined;
    }
    const doc = operation.responses[status];
    if (!doc) {
      problems.push(`status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
      return undefined;
    }
    return { ...doc, pointer: `openapi#/paths/${escape(exchange.route)}/${method}/responses/${status}` };
  }

  /** Compiled once per schema location; refs inside resolve against the whole document. */
  private validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

/** A JSON pointer segment (RFC 6901 section 3). */
const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

function parseBody(mediaType: string, body: string): { value?: unknown; error?: string } {
  try {
    // application/json and the structured +json media types (RFC 6839 section 3.1).
    if (mediaType === 'application/json' || mediaType.endsWith('+json')) return { value: JSON.parse(body) };
    if (mediaType === 'application/yaml') return { value: parseYaml(body) };
    return { value: body };
  } catch (error) {
    return { error: `body is not valid ${mediaType}: ${(error as Error).message}` };
  }
}

/**
 * Checks every response the app sends from now on against the document it serves. Installed before
 * the app listens; the document is read through the app itself once it is ready.
 */
export function checkResponsesAgainstDocument(app: FastifyInstance): { load(): Promise<void> } {
  let contract: ResponseContract | undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    if (contract) {
      const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : undefined;
      const problems = contract.check({
        method: request.method,
        route: request.is404 ? undefined : request.routeOptions.url,
        url: request.url,
        status: reply.statusCode,
        headers: reply.getHeaders(),
        body,
      });
      violations.push(...problems);
    }
    return payload;
  });
  return {
    async load() {
      const response = await app.inject({ method: 'GET', url: '/openapi.json' });
      contract = new ResponseContract(response.json() as Document);
    },
  };
}

// `portico serve` child processes (crash, shutdown and cluster tests) are checked at the client side:
// every response fetch() receives from a watched origin goes through the same check.
const watched = new Map<string, { contract: ResponseContract; paths: Set<string> }>();
const unwatchedFetch = globalThis.fetch;

/** Checks every response fetch() gets from `origin` from now on, against the document it serves. */
export async function watchResponses(origin: string): Promise<void> {
  const document = (await (await unwatchedFetch(`${origin}/openapi.json`)).json()) as Document;
  watched.set(origin, { contract: new ResponseContract(document), paths: new Set(Object.keys(document.paths)) });
}

export function unwatchResponses(origin: string): void {
  watched.delete(origin);
}

/** Wraps the global fetch once per test file (setup.ts). */
export function checkFetchedResponses(): void {
  globalThis.fetch = async (input, init) => {
    const response = await unwatchedFetch(input, init);
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : String(input));
    const target = watched.get(url.origin);
    if (target) {
      const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
      const path = url.pathname;
      const route = target.paths.has(path) || isAsset(path) ? path : undefined;
      const body = method === 'HEAD' ? '' : await response.clone().text();
      const headers = Object.fromEntries(response.headers);
      violations.push(...target.contract.check({ method, route, url: `${path}${url.search}`, status: response.status, headers, body }));
    }
    return response;
  };
}

/**
 * Not an operation of the API: a file named by its content's digest (/docs/assets/*, /embed/assets/*,
 * /embed/contact-form.<digest>.js), or /docs/, the address people type for /docs.
 */
function isAsset(path: string): boolean {
  return path === '/docs/' || path.startsWith('/docs/assets/') || path.startsWith('/embed/assets/') || /^\/embed\/contact-form\.[0-9a-f]{16}\.js$/.test(path);
}
