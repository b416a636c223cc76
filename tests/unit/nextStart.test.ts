import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nextStartArgs, SERVER_NODE_FLAGS } from "@/lib/server/nextStart";

describe("how a server process starts", () => {
  it("`npm start` passes the server's V8 flags, as every script that spawns `next start` does", () => {
    const start: string = JSON.parse(fs.readFileSync(path.join(__dirname, "../../package.json"), "utf8")).scripts.start;
    for (const flag of SERVER_NODE_FLAGS) expect(start).toContain(flag);
    expect(nextStartArgs("/app", 3001, "0.0.0.0", "")).toEqual([...SERVER_NODE_FLAGS, "/app/node_modules/next/dist/bin/next", "start", "-p", "3001", "-H", "0.0.0.0"]);
    // the operator's own value wins, as under npm start
    expect(nextStartArgs("/app", 3001, "0.0.0.0", "--max-semi-space-size=16")).toEqual(["/app/node_modules/next/dist/bin/next", "start", "-p", "3001", "-H", "0.0.0.0"]);
  });
});
