// Next.js loads a module once per bundle (the instrumentation hook, each route), so an error made
// by one copy of lib/api/errors.ts (e.g. the ingest worker's reply, received by the copy that
// started the worker) must be recognized by every other copy, or a 400 becomes a 500.
import { describe, expect, it, vi } from "vitest";

describe("error classes across module copies", () => {
  it("an ApiError or DomainError from one copy is one to another copy", async () => {
    const first = await import("@/lib/api/errors");
    const firstDomain = await import("@/lib/domain/errors");
    vi.resetModules();
    const second = await import("@/lib/api/errors");
    const secondDomain = await import("@/lib/domain/errors");
    expect(second.ApiError).not.toBe(first.ApiError); // really two copies

    const apiError = new first.ApiError(413, "too large");
    expect(apiError).toBeInstanceOf(second.ApiError);
    expect(second.httpError(apiError)).toEqual({ status: 413, message: "too large" });
    const domainError = new firstDomain.DomainError("not_found", "Interruption not found");
    expect(second.httpError(domainError)).toEqual({ status: 404, message: "Interruption not found" });
    expect(domainError).toBeInstanceOf(secondDomain.DomainError);

    expect(new Error("plain")).not.toBeInstanceOf(second.ApiError);
    expect(second.httpError(new Error("plain"))).toBeNull();
    expect(second.httpError(null)).toBeNull();
  });
});
