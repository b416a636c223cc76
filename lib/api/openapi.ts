// The OpenAPI 3.1 document, generated from the same contracts that validate requests.
import { z } from "zod";
import { SCOPES } from "../auth/scopes";
import { contracts, type Contract } from "./contract";
import "./contracts";

function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });
}

function parameters(c: Contract) {
  const params: object[] = [...c.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
  if (c.query) {
    const schema = jsonSchema(c.query, "input") as { properties?: Record<string, object>; required?: string[] };
    for (const [name, s] of Object.entries(schema.properties ?? {})) {
      params.push({ name, in: "query", required: schema.required?.includes(name) ?? false, schema: s });
    }
  }
  return params;
}

const MEDIA_TYPES = { json: ["application/json"], multipart: ["multipart/form-data"], otlp: ["application/x-protobuf", "application/json"] } as const;
const mediaTypes = (c: Contract, schema: object) => Object.fromEntries(MEDIA_TYPES[c.bodyType ?? "json"].map((type) => [type, { schema }]));

function operation(c: Contract) {
  const ok = String(c.status ?? 200);
  const error = { description: "Error", content: { "application/json": { schema: { type: "object", properties: { error: { type: "string" } }, required: ["error"] } } } };
  return {
    summary: c.summary,
    tags: [c.tag],
    ...(c.scope ? { security: [{ bearer: [] }], "x-required-scope": c.scope } : { security: [] }),
    parameters: parameters(c),
    ...(c.body ? { requestBody: { required: !c.body.safeParse(undefined).success, content: mediaTypes(c, jsonSchema(c.body, "input")) } } : {}),
    responses: {
      [ok]: { description: "OK", content: c.bodyType === "otlp" ? mediaTypes(c, c.response ? jsonSchema(c.response, "output") : {}) : { "application/json": { schema: c.response ? jsonSchema(c.response, "output") : {} } } },
      "400": error,
      ...(c.scope ? { "401": error, "403": error } : {}),
      ...(c.body ? { "413": error } : {}),
    },
  };
}

export function openApiDocument() {
  const paths: Record<string, Record<string, object>> = {};
  for (const c of contracts()) (paths[c.path] ??= {})[c.method.toLowerCase()] = operation(c);
  return {
    openapi: "3.1.0",
    info: { title: "SightDesk API", version: "1", description: "Interruption inbox for AI agents; AgentSight-compatible interruption routes." },
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: `An API token. Each operation's x-required-scope is one of ${SCOPES.join(", ")}; admin implies every scope.`,
        },
      },
    },
    paths,
  };
}
