// Where ingested data comes from (the Connect page shows when each last delivered, and from
// which agents): the REST ingest API, raw HTTP exchanges, the recording proxy, OpenTelemetry
// and AgentSight imports / forwarders.

export const INGEST_SOURCES = ["api", "http", "proxy", "otlp", "import"] as const;
export type IngestSource = (typeof INGEST_SOURCES)[number];

export const isIngestSource = (v: unknown): v is IngestSource => typeof v === "string" && (INGEST_SOURCES as readonly string[]).includes(v);

/** The request header a capture layer names itself with on the ingest routes. */
export const SOURCE_HEADER = "x-sightdesk-source";

/**
 * The source a request's `X-SightDesk-Source` header claims, when it is one of `allowed`
 * (case-insensitive); anything else is `fallback`.
 */
export function sourceFromHeader(value: string | null | undefined, allowed: readonly IngestSource[], fallback: IngestSource): IngestSource {
  const v = value?.trim().toLowerCase();
  return v && (allowed as readonly string[]).includes(v) ? (v as IngestSource) : fallback;
}
