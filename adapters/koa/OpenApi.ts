/**
 * The OpenAPI 3.1 description, generated from the route definitions (their effect Schemas,
 * through `JSONSchema`), so it cannot drift from what the routes accept and answer. Error
 * answers are documented as problem+json with the statuses each route can produce.
 */
import { JSONSchema, Schema, SchemaAST as AST } from "effect";
import { idempotencyKeyHeader } from "./Idempotency.js";
import { pageQueryFields } from "./Pagination.js";
import { problemContentType, problemTitle } from "./ProblemJson.js";
import type { EtagForm, Route } from "./Route.js";

/** An OpenAPI document (plain JSON). */
export type OpenApiDocument = Record<string, unknown>;

/** What the document says about the API as a whole. */
export interface OpenApiOptions {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  readonly routes: ReadonlyArray<Route>;
  readonly servers?: ReadonlyArray<{ readonly url: string; readonly description?: string }>;
}

const schemaPath = "#/components/schemas/";

/** The JSON Schema of a problem body (docs/conventions.md, Errors). */
const problemSchema = {
  type: "object",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: { type: "string", description: "URI identifying the problem type (urn:domainkit:problem:<code>)." },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string", description: "Stable snake_case machine code." },
    errors: {
      type: "array",
      description: "Invalid fields (validation failures).",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } },
      },
    },
    current: { description: "The current resource (412 version_mismatch)." },
    diff: { description: "What changed (409 conflicts that carry one)." },
  },
};

/** Builds the OpenAPI 3.1 document of `routes`. */
export const openApiDocument = (options: OpenApiOptions): OpenApiDocument => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {};
  const toJsonSchema = (ast: AST.AST): JSONSchema.JsonSchema7 =>
    JSONSchema.fromAST(ast, {
      definitions,
      definitionPath: schemaPath,
      target: "openApi3.1",
    });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of options.routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route, toJsonSchema);
  }
  // Effect's Date schema is "a string to be decoded into a Date"; on the wire every timestamp is RFC 3339 UTC (conventions.md, HTTP).
  if (definitions.Date !== undefined) definitions.Date = { type: "string", format: "date-time", description: "an RFC 3339 UTC timestamp, e.g. 2026-11-28T21:56:10.278Z" };
  return {
    openapi: "3.1.0",
    info: { title: options.title, version: options.version, ...(options.description ? { description: options.description } : {}) },
    ...(options.servers ? { servers: options.servers } : {}),
    paths,
    components: {
      schemas: { ...definitions, Problem: problemSchema },
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
    },
  };
};

/** `/v1/tasks/:task_id` -> `/v1/tasks/{task_id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

type ToJsonSchema = (ast: AST.AST) => JSONSchema.JsonSchema7;

/** What each ETag form is (Route.ts `EtagForm`); as If-Match, each names the version. */
const etagDescriptions: Record<EtagForm, string> = {
  version: 'The resource\'s version, e.g. "3"; send it as If-Match to change the resource at that version.',
  qualified: 'The version and what else the answer depends on, e.g. "3.7"; it changes with either. As If-Match it names the version (3).',
  weak: 'A weak validator, e.g. W/"3.1234": the version and a digest of the whole answer, which changes with anything the answer shows. As If-Match it names the version (3).',
};

const operation = (route: Route, toJsonSchema: ToJsonSchema): Record<string, unknown> => {
  const parameters: unknown[] = [];
  const pathNames = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
  const paramFields = route.params ? fieldsOf(route.params) : [];
  for (const name of pathNames) {
    const field = paramFields.find((f) => f.name === name);
    parameters.push({ name, in: "path", required: true, schema: field ? toJsonSchema(field.type) : { type: "string" } });
  }
  const queryFields = route.query ? fieldsOf(route.query) : [];
  if (route.pagination) {
    for (const field of fieldsOf(Schema.Struct(pageQueryFields))) {
      if (!queryFields.some((f) => f.name === field.name)) queryFields.push(field);
    }
  }
  for (const field of queryFields) {
    parameters.push({
      name: field.name,
      in: "query",
      required: !field.optional,
      ...(field.description ? { description: field.description } : {}),
      schema: toJsonSchema(field.type),
    });
  }
  if (route.idempotency !== "none") {
    parameters.push({
      name: idempotencyKeyHeader,
      in: "header",
      required: route.idempotency === "required",
      description: "Client-chosen key (1 to 255 characters) that makes a retry of this request safe.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
  }
  if (route.ifMatch !== "none") {
    parameters.push({
      name: "If-Match",
      in: "header",
      required: route.ifMatch === "required",
      description: 'The version the change is based on, as given in ETag: "3".',
      schema: { type: "string" },
    });
  }
  for (const header of route.requestHeaders) {
    parameters.push({ name: header.name, in: "header", required: header.required, description: header.description, schema: { type: "string" } });
  }
  const etag = route.answersEtag === undefined ? undefined : { ETag: { description: etagDescriptions[route.answersEtag], schema: { type: "string" } } };
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(route.responses)) {
    const success = Number(status) >= 200 && Number(status) < 300;
    responses[status] = {
      description: problemTitle(Number(status)),
      ...(success && etag !== undefined ? { headers: etag } : {}),
      ...(schema ? { content: { "application/json": { schema: toJsonSchema(schema.ast) } } } : {}),
    };
  }
  for (const status of problemStatuses(route)) {
    responses[String(status)] = {
      description: problemTitle(status),
      content: { [problemContentType]: { schema: { $ref: `${schemaPath}Problem` } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [...route.tags],
    security: route.auth === "required" ? [{ bearerAuth: [] }] : route.auth === "optional" ? [{ bearerAuth: [] }, {}] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { "application/json": { schema: toJsonSchema(route.body.ast) } } } }
      : {}),
    responses,
  };
};

/** The error statuses the machinery itself can answer for this route, plus the module's own. */
const problemStatuses = (route: Route): number[] => {
  const statuses = new Set<number>([429, 500, ...route.problems]);
  if (route.params || route.query || route.pagination || route.idempotency !== "none" || route.ifMatch !== "none") statuses.add(400);
  if (route.auth !== "none") statuses.add(401);
  if (route.body) [400, 413, 415, 422].forEach((s) => statuses.add(s));
  if (route.idempotency !== "none") [409, 422].forEach((s) => statuses.add(s));
  if (route.ifMatch !== "none") statuses.add(412);
  if (route.ifMatch === "required") statuses.add(428);
  return [...statuses].sort((a, b) => a - b);
};

interface Field {
  readonly name: string;
  readonly type: AST.AST;
  readonly optional: boolean;
  readonly description?: string | undefined;
}

/** The properties of a struct schema, as the client sends them (the encoded side). */
const fieldsOf = (schema: Schema.Schema.AnyNoContext): Field[] => {
  const ast = AST.encodedAST(schema.ast);
  if (!AST.isTypeLiteral(ast)) return [];
  return ast.propertySignatures.map((ps) => ({
    name: String(ps.name),
    // An optional field's type is `T | undefined`; a parameter is either present as T or absent.
    type: ps.isOptional ? withoutUndefined(ps.type) : ps.type,
    optional: ps.isOptional,
    description: describe(ps) ?? describe(ps.type),
  }));
};

const withoutUndefined = (ast: AST.AST): AST.AST =>
  AST.isUnion(ast) ? AST.Union.make(ast.types.filter((member) => !AST.isUndefinedKeyword(member)), ast.annotations) : ast;

const describe = (ast: AST.Annotated): string | undefined => {
  const description = AST.getDescriptionAnnotation(ast);
  return description._tag === "Some" ? description.value : undefined;
};
