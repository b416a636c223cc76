// A saved view's query (lib/domain/inboxQuery.ts): its canonical form, the 400s naming the key,
// and — the point of it — that the server reads a view exactly as the inbox does: for each tab
// and filter, viewFilter(query) equals what the browser's own URL state (components/inbox/
// params.ts, through nuqs) sends to the API, as the API parses it.
import { createLoader, createSerializer } from "nuqs/server";
import { describe, expect, it } from "vitest";
import { filterQuery as apiFilterQuery } from "@/lib/api/contracts/params";
import { DomainError } from "@/lib/domain/errors";
import { normalizeViewQuery, VIEW_TABS, viewFilter } from "@/lib/domain/inboxQuery";
import { compact, filterQuery as browserFilterQuery, inboxParsers, inboxUrlKeys, TABS } from "@/components/inbox/params";

const NOW = 1_767_268_800_000_000_000n;
const load = createLoader(inboxParsers, { urlKeys: inboxUrlKeys });
const serialize = createSerializer(inboxParsers, { urlKeys: inboxUrlKeys });

/** What the inbox at this URL asks the API for, as the API reads it. */
function browserFilter(query: string) {
  const params = load(new URLSearchParams(query));
  return apiFilterQuery.parse(compact(browserFilterQuery(params, NOW)));
}

const SAMPLES = [
  "",
  "severity=critical,high",
  "interruption_type=rate_limit&agent_name=CoshNG,Other",
  "status=open",
  "status=acknowledged,resolved",
  "unresolved=false",
  "unresolved=false&status=resolved",
  "range=1h&q=timeout",
  "range=7d&regressed=true",
  "range=custom&from=2025-12-31T10:00:00.000Z&to=2025-12-31T12:30:00.000Z",
  "range=custom&from=2025-12-31T10:00:00.000Z",
  "range=custom&to=2030-01-01T00:00:00.000Z",
  "fingerprint=abc123,def456&group=true&sort=severity&order=asc",
  ...TABS.map((tab) => `tab=${tab}&severity=high`),
];

describe("a saved view's filter", () => {
  it.each(SAMPLES)("matches the inbox's for ?%s", (query) => {
    expect(viewFilter(query, NOW)).toEqual(browserFilter(query));
  });

  it("knows every tab the inbox has", () => {
    expect([...VIEW_TABS].sort()).toEqual([...TABS].sort());
  });

  it("reads what the inbox writes (nuqs serializer) and keeps its meaning", () => {
    const params = load(new URLSearchParams("severity=critical&tab=review&range=7d&agent_name=a,b&pages=3"));
    const written = serialize(params);
    const saved = normalizeViewQuery(written);
    expect(saved).not.toMatch(/pages/);
    expect(viewFilter(saved, NOW)).toEqual(browserFilter(written));
  });
});

describe("a view's canonical query", () => {
  it("keeps known keys in one order, drops defaults, duplicates, empties, `view` and `pages`", () => {
    expect(normalizeViewQuery("?severity=high,critical,high&range=24h&unresolved=true&view=x&pages=2&q=&tab=review")).toBe("tab=review&severity=high%2Ccritical");
    expect(normalizeViewQuery("range=custom&from=2025-12-31T10:00:00Z")).toBe("range=custom&from=2025-12-31T10%3A00%3A00.000Z");
    expect(normalizeViewQuery("")).toBe("");
    // two spellings of one view are one canonical query
    expect(normalizeViewQuery("status=open&severity=low")).toBe(normalizeViewQuery("severity=low&status=open&sort=time"));
  });

  it("refuses what the inbox cannot show, naming the key", () => {
    const fails = (q: string, message: RegExp) => {
      let error: unknown;
      try {
        normalizeViewQuery(q);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).status).toBe(400);
      expect((error as Error).message).toMatch(message);
    };
    fails("severity=urgent", /query\.severity: unknown value 'urgent'/);
    fails("interruption_type=rate_limit,nope", /query\.interruption_type: unknown value 'nope'/);
    fails("tab=later", /query\.tab/);
    fails("range=2d", /query\.range/);
    fails("from=yesterday", /query\.from: expected an ISO date/);
    // a typo of a year: before, stored, then every count of the views answered 500
    fails("range=custom&from=2925-01-01", /query\.from: expected a date between 1970 and 2262/);
    fails("range=custom&to=1600-01-01", /query\.to: expected a date between 1970 and 2262/);
    fails("unresolved=maybe", /query\.unresolved: expected true or false/);
    fails("q=" + "x".repeat(201), /query\.q: at most 200/);
    fails("start_ns=1", /query: unknown parameter 'start_ns'/);
    fails("severity=high&severity=low", /query\.severity: given more than once/);
  });
});
