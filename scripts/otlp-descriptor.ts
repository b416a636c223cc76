// Writes lib/otlp/proto/trace.json, the protobufjs JSON descriptor of the vendored OTLP trace
// definitions (lib/otlp/proto/opentelemetry/…), so the server decodes with protobufjs/light and
// parses no .proto text at run time. Run it after updating the vendored .proto files:
//   npx tsx scripts/otlp-descriptor.ts          (writes the file)
//   npx tsx scripts/otlp-descriptor.ts --check  (exit 1 when the committed file is stale)
// One decoding policy is added to the definitions: strings are read without UTF-8 verification
// (the editions feature utf8_validation = NONE on every message), so a stray invalid byte in one
// attribute becomes U+FFFD instead of failing the whole export with a 400.
import fs from "node:fs";
import path from "node:path";
import protobuf from "protobufjs";

export const PROTO_DIR = path.resolve(__dirname, "../lib/otlp/proto");
export const DESCRIPTOR = path.join(PROTO_DIR, "trace.json");
const ENTRY = "opentelemetry/proto/collector/trace/v1/trace_service.proto";

type Json = { nested?: Record<string, Json>; fields?: unknown; options?: Record<string, unknown> };

/** Every message declared at a package's top (nested messages inherit their parent's features). */
function lenientStrings(node: Json, inPackage = true): void {
  for (const child of Object.values(node.nested ?? {})) {
    const isMessage = child.fields !== undefined;
    if (isMessage && inPackage) child.options = { ...child.options, features: { utf8_validation: "NONE" } };
    lenientStrings(child, !isMessage);
  }
}

/** The descriptor's text, generated from the .proto files. */
export function descriptorText(): string {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync(ENTRY);
  const json = root.toJSON() as Json;
  lenientStrings(json);
  return JSON.stringify(json, null, 1) + "\n";
}

if (process.argv[1]?.endsWith("otlp-descriptor.ts")) {
  const text = descriptorText();
  if (process.argv.includes("--check")) {
    const current = fs.existsSync(DESCRIPTOR) ? fs.readFileSync(DESCRIPTOR, "utf8") : "";
    if (current !== text) {
      console.error(`${path.relative(process.cwd(), DESCRIPTOR)} is stale: run npx tsx scripts/otlp-descriptor.ts`);
      process.exit(1);
    }
  } else {
    fs.writeFileSync(DESCRIPTOR, text);
    console.log(`wrote ${path.relative(process.cwd(), DESCRIPTOR)} (${text.length} bytes)`);
  }
}
