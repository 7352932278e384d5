import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { HttpResult } from './http.js';

/**
 * Checks an API response against the OpenAPI document its listener serves (`/v1/openapi.json`): the
 * operation of the method and path, the response of the status, and the JSON body against that response's
 * schema (ADR 0027). The typed test client (client.ts) runs it on every response, so a response that does
 * not conform fails the test that received it.
 */
interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: Record<string, unknown>;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));

const documents = new Map<string, Promise<Document>>();
const validators = new Map<string, ValidateFunction>();
const matchers = new WeakMap<Document, Array<{ template: string; pattern: RegExp }>>();

function documentOf(origin: string): Promise<Document> {
  let document = documents.get(origin);
  if (document === undefined) {
    document = fetch(`${origin}/v1/openapi.json`).then(async (response) => {
      if (response.status !== 200) throw new Error(`${origin}/v1/openapi.json answered ${response.status}`);
      return (await response.json()) as Document;
    });
    documents.set(origin, document);
    // A failed fetch is not kept: the next response tries again.
    document.catch(() => documents.delete(origin));
  }
  return document;
}

/** The document's path template of a concrete path; literal segments win over parameters. */
function templateOf(document: Document, pathname: string): string | undefined {
  let list = matchers.get(document);
  if (list === undefined) {
    list = Object.keys(document.paths ?? {})
      .map((template) => ({
        template,
        params: (template.match(/\{[^}]+\}/g) ?? []).length,
        pattern: new RegExp(
          `^${template
            .split(/\{[^}]+\}/)
            .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
            .join('[^/]+')}$`,
        ),
      }))
      .sort((a, b) => a.params - b.params)
      .map(({ template, pattern }) => ({ template, pattern }));
    matchers.set(document, list);
  }
  return list.find((candidate) => candidate.pattern.test(pathname))?.template;
}

/**
 * Returns what does not conform (an empty list when the response conforms). A path the document does
 * not describe (a hidden route, an unknown path) is not checked: there is nothing to conform to.
 */
export async function conformanceProblems(
  method: string,
  url: string,
  result: HttpResult,
): Promise<string[]> {
  const { origin, pathname } = new URL(url);
  const document = await documentOf(origin);
  const template = templateOf(document, pathname);
  if (template === undefined) return [];
  const operation = document.paths?.[template]?.[method.toLowerCase()];
  if (operation === undefined) {
    // The document has the path but not this method: only a 404/405 answer is right.
    return [404, 405].includes(result.status) ? [] : [`${method} ${template} is not in the document`];
  }
  const status = String(result.status);
  const responses = operation.responses ?? {};
  const response = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
  const where = `${method} ${template} → ${status}`;
  if (response === undefined) {
    return [`${where}: the status is not documented (documented: ${Object.keys(responses).join(', ')})`];
  }
  const schema = response.content?.['application/json']?.schema;
  if (schema === undefined) return [];
  const contentType = result.headers.get('content-type') ?? '';
  if (!contentType.includes('application/json')) {
    return [`${where}: documented as application/json, answered ${contentType || 'without a content type'}`];
  }
  const key = `${origin} ${method} ${template} ${status}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile({ ...schema, components: document.components });
    validators.set(key, validate);
  }
  if (validate(result.body)) return [];
  return (validate.errors ?? []).map(
    (error) => `${where}: body${error.instancePath} ${error.message ?? 'does not conform'}`,
  );
}

/** Throws when the response does not conform to the served document. */
export async function assertConforms(method: string, url: string, result: HttpResult): Promise<void> {
  const problems = await conformanceProblems(method, url, result);
  if (problems.length > 0) {
    throw new Error(
      `the response does not conform to the OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${result.text.slice(0, 2000)}`,
    );
  }
}
