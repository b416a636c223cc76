// The dependency rule (issue #12): imports point down the layers, never up, and no two lib/
// folders import each other, directly or round a loop. Layers, bottom to top (ARCHITECTURE.md):
//
//   0  lib/domain, lib/json,      the vocabulary (types, severities, statuses, the filter, the
//      lib/memo, lib/groupBy      normalized call, errors, time), bounded JSON parsing and bounded
//                                 memos, one-pass grouping: pure
//   1  lib/net                    outbound address rules and the pinned fetch (reads no config)
//   2  lib/config, lib/detect,    the configuration (and the outbound policy it sets); detection
//      lib/trajectory             rules and trajectory layout (pure)
//   3  lib/db, lib/wire,          Prisma client, migrations, queries, multi-row SQL; rows as the
//      lib/coordination           AgentSight-compatible JSON records, exact-integer JSON; leases and
//                                 row claims that split background work between server processes
//   4  lib/ingest, lib/otlp, lib/proxy, lib/auth, lib/triage, lib/sweeps, lib/alerts, lib/deadloop,
//      lib/import
//                                 services: storing calls, identity, triage, retention, alerts…
//   5  lib/api, lib/demo          HTTP: contracts (zod), the route factory, request auth glue,
//                                 body limits, OpenAPI; demo traffic (through the ingest code)
//   6  lib/cli, lib/server        the CLI; server startup (workers, schedulers)
//   7  components                 browser code
//   8  app                        Next.js routes and pages (plus proxy.ts, instrumentation.ts)
//
// Rules:
//  - a file may import its own folder, and any folder of its own or a lower layer; folders of one
//    layer may import each other as long as no two form a loop (lib/deadloop → lib/alerts is fine;
//    lib/alerts → lib/deadloop as well would fail);
//  - every repository file imported from lib/, app/ or components/ lies in a declared layer
//    (so nothing there imports tests/, scripts/ or bench/, and a new lib/ folder must be placed);
//  - pure layers (lib/domain, lib/json, lib/memo, lib/groupBy, lib/detect, lib/trajectory): their runtime imports
//    (`import type` aside) reach only pure folders and no package but node:crypto (hashing);
//  - components (browser code) may import types from anywhere; at runtime, nothing it reaches,
//    however indirectly, may import a node: builtin or a server-only package (Prisma, the
//    database drivers, next-auth's server side, next/headers).
// Type-only imports count for layers and loops (a type names a shape of the layer it lives in).
//
// The scan is a small regex over `import … from "…"`, `export … from "…"`, `import "…"`,
// `import("…")` and `require("…")`, resolving relative paths and the `@/` alias.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, REPO_ROOT } from "../support/repoFiles";

const LAYERS: string[][] = [
  ["lib/domain", "lib/json", "lib/memo", "lib/groupBy"],
  ["lib/net"],
  ["lib/config", "lib/detect", "lib/trajectory"],
  ["lib/db", "lib/wire", "lib/coordination"],
  ["lib/ingest", "lib/otlp", "lib/proxy", "lib/auth", "lib/triage", "lib/sweeps", "lib/alerts", "lib/deadloop", "lib/import"],
  ["lib/api", "lib/demo"],
  ["lib/cli", "lib/server"],
  ["components"],
  ["app"],
];
const PURE = new Set(["lib/domain", "lib/json", "lib/memo", "lib/groupBy", "lib/detect", "lib/trajectory"]);
const PURE_PACKAGES = new Set(["node:crypto"]);
const SERVER_ONLY = /^(node:|@prisma\/|better-sqlite3$|pg$|next-auth(\/jwt|\/next)?$|next\/headers$)/;

const ROOT = REPO_ROOT;
const SCANNED_DIRS = ["lib", "app", "components"];
const SCANNED_ROOT_FILES = ["proxy.ts", "instrumentation.ts"];
const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".cjs", ".mjs"];

const RANK = new Map(LAYERS.flatMap((names, rank) => names.map((n) => [n, rank] as const)));

/** The layer unit of a repository file: lib/<folder> (or lib/<file> at lib's top), app, components. */
function unitOf(file: string): string | null {
  if (SCANNED_ROOT_FILES.includes(file)) return "app";
  const parts = file.split("/");
  if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : `lib/${parts[1].replace(/\.[^.]+$/, "")}`;
  if (parts[0] === "app" || parts[0] === "components") return parts[0];
  return null;
}

type Import = { from: string; spec: string; to: string | null; pkg: string | null; typeOnly: boolean };

const STATIC = /^[ \t]*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/gm;
const BARE = /^[ \t]*import\s*["']([^"']+)["']/gm;
const DYNAMIC = /\b(?:import|require)\(\s*["']([^"']+)["']\s*\)/g;

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Every import of `file` (repository-relative), resolved against `exists`. */
function importsOf(file: string, source: string, exists: (f: string) => boolean): Import[] {
  const text = withoutComments(source);
  const found: { spec: string; typeOnly: boolean }[] = [];
  for (const m of text.matchAll(STATIC)) {
    const clause = m[3];
    const inlineTypes = /^\{[\s\S]*\}$/.test(clause) && clause.slice(1, -1).split(",").map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith("type "));
    found.push({ spec: m[4], typeOnly: Boolean(m[2]) || inlineTypes });
  }
  for (const m of text.matchAll(BARE)) found.push({ spec: m[1], typeOnly: false });
  for (const m of text.matchAll(DYNAMIC)) found.push({ spec: m[1], typeOnly: false });
  return found.map(({ spec, typeOnly }) => {
    let base: string | null = null;
    if (spec.startsWith(".")) base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    else if (spec.startsWith("@/")) base = spec.slice(2);
    if (base === null) return { from: file, spec, to: null, pkg: spec, typeOnly };
    const stem = base.replace(/\.(ts|tsx|js|cjs|mjs)$/, "");
    const candidates = [base, ...EXTENSIONS.map((e) => stem + e), ...EXTENSIONS.map((e) => `${base}/index${e}`)];
    return { from: file, spec, to: candidates.find(exists) ?? base, pkg: null, typeOnly };
  });
}

const isSource = (name: string) => EXTENSIONS.some((x) => name.endsWith(x)) && !name.endsWith(".d.ts");

/** The scanned sources: lib/, app/, components/ and the root entry files (the generated Prisma clients aside). */
function readSources(): Map<string, string> {
  const files = [...SCANNED_DIRS.flatMap((d) => filesUnder(d, isSource)), ...SCANNED_ROOT_FILES.filter((f) => fs.existsSync(path.join(ROOT, f)))];
  return new Map(files.filter((f) => !/^lib\/db\/generated(-pg)?\//.test(f)).map((f) => [f, fs.readFileSync(path.join(ROOT, f), "utf8")]));
}

const arrow = (i: Import) => `${i.from} → ${i.to ?? i.pkg}`;

/** Every violation of the rules above, one line each: `from → to (why)`. */
function violations(sources: Map<string, string>): string[] {
  const exists = (f: string) => sources.has(f) || fs.existsSync(path.join(ROOT, f));
  const imports = new Map([...sources].map(([file, text]) => [file, importsOf(file, text, exists)]));
  const out: string[] = [];

  // layers
  const edges = new Map<string, Import[]>(); // "a|b" (one layer) → the imports that make the edge
  for (const list of imports.values()) {
    for (const i of list) {
      if (i.to === null) continue;
      const a = unitOf(i.from)!;
      const b = unitOf(i.to);
      if (b === null || !RANK.has(b)) {
        out.push(`${arrow(i)} (not in a layer)`);
        continue;
      }
      if (!RANK.has(a)) {
        out.push(`${arrow(i)} (${a} is not in a layer: add it to LAYERS)`);
        continue;
      }
      if (a === b) continue;
      if (RANK.get(b)! > RANK.get(a)!) out.push(`${arrow(i)} (up a layer: ${a} is below ${b})`);
      if (RANK.get(b) !== RANK.get(a)) continue;
      const key = `${a}|${b}`;
      edges.set(key, [...(edges.get(key) ?? []), i]);
    }
  }

  // Loops between folders (strongly connected components of the folder graph). A loop with an
  // upward edge is reported above, at that edge; one without must stay within one layer, so only
  // the edges between folders of one layer are searched.
  const units = [...new Set([...edges.keys()].flatMap((k) => k.split("|")))].sort();
  const next = (u: string) => units.filter((v) => edges.has(`${u}|${v}`));
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (u: string) => {
    index.set(u, counter);
    low.set(u, counter++);
    stack.push(u);
    onStack.add(u);
    for (const v of next(u)) {
      if (!index.has(v)) {
        connect(v);
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      } else if (onStack.has(v)) low.set(u, Math.min(low.get(u)!, index.get(v)!));
    }
    if (low.get(u) === index.get(u)) {
      const component: string[] = [];
      let v: string;
      do {
        v = stack.pop()!;
        onStack.delete(v);
        component.push(v);
      } while (v !== u);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const u of units) if (!index.has(u)) connect(u);
  for (const component of components) {
    for (const a of component) {
      for (const b of component) {
        for (const i of edges.get(`${a}|${b}`) ?? []) out.push(`${arrow(i)} (loop between ${component.join(", ")})`);
      }
    }
  }

  // the packages a file loads at runtime, however indirectly
  const closure = (file: string) => {
    const files = new Set<string>();
    const packages = new Map<string, Import>(); // package → the import that loads it
    const visit = (f: string) => {
      if (files.has(f)) return;
      files.add(f);
      for (const i of imports.get(f) ?? []) {
        if (i.typeOnly) continue;
        if (i.pkg !== null) {
          if (!packages.has(i.pkg)) packages.set(i.pkg, i);
        } else if (i.to !== null) visit(i.to);
      }
    };
    visit(file);
    return packages;
  };

  for (const file of sources.keys()) {
    const unit = unitOf(file)!;
    if (PURE.has(unit)) {
      for (const i of imports.get(file)!) {
        if (i.typeOnly) continue;
        if (i.pkg !== null && !PURE_PACKAGES.has(i.pkg)) out.push(`${arrow(i)} (${unit} is pure: no I/O, no packages)`);
        if (i.to !== null && !PURE.has(unitOf(i.to) ?? "")) out.push(`${arrow(i)} (${unit} is pure: it imports only pure folders at runtime)`);
      }
    }
    if (unit === "components") {
      for (const [pkg, i] of closure(file)) {
        if (SERVER_ONLY.test(pkg)) out.push(`${file} → ${pkg} (browser code reaches a server-only import, via ${i.from})`);
      }
    }
  }
  return [...new Set(out)].sort();
}

describe("the dependency rule (layers)", () => {
  const sources = readSources();

  it("holds: no import points up a layer, no folders form a loop, pure folders stay pure", () => {
    const found = violations(sources);
    expect(found, `\n${found.join("\n")}\n`).toEqual([]);
  });

  it("scans what it should: every lib/ folder sits in a layer, and it sees the imports", () => {
    const libUnits = new Set([...sources.keys()].map(unitOf).filter((u): u is string => u !== null && u.startsWith("lib/")));
    expect([...libUnits].filter((u) => !RANK.has(u))).toEqual([]);
    const exists = (f: string) => sources.has(f);
    const route = importsOf("lib/api/route.ts", sources.get("lib/api/route.ts")!, exists);
    expect(route.map((i) => i.to)).toContain("lib/db/client.ts");
    expect(route.find((i) => i.to === "lib/auth/actor.ts")?.typeOnly).toBe(true);
  });

  // The tree plus some made-up files: what the rule then reports.
  const withProbe = (files: Record<string, string>) => violations(new Map([...sources, ...Object.entries(files)]));

  it("fails on an upward import", () => {
    expect(withProbe({ "lib/db/probe.ts": `import { handle } from "../api/route";\n` })).toContain(
      "lib/db/probe.ts → lib/api/route.ts (up a layer: lib/db is below lib/api)",
    );
    expect(withProbe({ "lib/alerts/probe.ts": `import type { Actor } from "@/lib/api/auth";\n` })).toContain(
      "lib/alerts/probe.ts → lib/api/auth.ts (up a layer: lib/alerts is below lib/api)",
    );
    expect(withProbe({ "lib/api/probe.ts": `export * from "../../components/ui/Panel";\n` })).toContain(
      "lib/api/probe.ts → components/ui/Panel.tsx (up a layer: lib/api is below components)",
    );
    expect(withProbe({ "lib/db/probe.ts": `const m = await import("../../scripts/e2e-server");\n` })).toContain("lib/db/probe.ts → scripts/e2e-server.ts (not in a layer)");
  });

  it("fails on a loop between folders of one layer", () => {
    const found = withProbe({
      "lib/auth/probe.ts": `import {\n  sweep,\n} from "@/lib/sweeps/sweep";\n`,
      "lib/sweeps/probe.ts": `export { actorName } from "../auth/actor";\n`,
    });
    expect(found).toContain("lib/auth/probe.ts → lib/sweeps/sweep.ts (loop between lib/auth, lib/sweeps)");
    expect(found).toContain("lib/sweeps/probe.ts → lib/auth/actor.ts (loop between lib/auth, lib/sweeps)");
  });

  it("fails on I/O in a pure folder and on server code reached from the browser", () => {
    const found = withProbe({
      "lib/detect/probe.ts": `import fs from "node:fs";\nimport { config } from "../config/load";\n`,
      "lib/detect/probeTypes.ts": `import type { SightDeskConfig } from "../config/load";\nimport { type ConfigError } from "../config/load";\n`,
      "components/probe.tsx": `import { listWebhooks } from "@/lib/alerts/webhooks";\n`,
    });
    expect(found).toContain("lib/detect/probe.ts → node:fs (lib/detect is pure: no I/O, no packages)");
    expect(found).toContain("lib/detect/probe.ts → lib/config/load.ts (lib/detect is pure: it imports only pure folders at runtime)");
    expect(found.filter((v) => v.startsWith("lib/detect/probeTypes.ts"))).toEqual([]); // types only
    expect(found).toContain("components/probe.tsx → node:crypto (browser code reaches a server-only import, via lib/alerts/webhooks.ts)");
  });

  it("ignores imports in comments", () => {
    expect(withProbe({ "lib/domain/probe.ts": `// import { handle } from "../api/route";\n/* import "../db/client"; */\nexport const x = 1;\n` })).toEqual(violations(sources));
  });
});
