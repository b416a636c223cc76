// The CLI's times (--expires, --until): nanoseconds or a date, never a short number read as 1970.
import { describe, expect, it } from "vitest";
import { parseTime } from "@/lib/cli/options";

describe("parseTime", () => {
  it("takes integer nanoseconds of 16 to 20 digits as they are", () => {
    expect(parseTime("1800000000000000000")).toBe("1800000000000000000");
    expect(parseTime(" 1000000000000000 ")).toBe("1000000000000000");
  });

  it("reads a year or a date as the date, not as nanoseconds after 1970", () => {
    expect(parseTime("2027")).toBe("2027-01-01T00:00:00.000Z");
    expect(parseTime("2027-01-31")).toBe("2027-01-31T00:00:00.000Z");
    expect(parseTime("2027-01-31T12:00:00+02:00")).toBe("2027-01-31T10:00:00.000Z");
  });

  it("refuses what is neither", () => {
    expect(() => parseTime("20270131")).toThrow(/ISO 8601 time .* or integer nanoseconds/);
    expect(() => parseTime("tomorrow")).toThrow(/ISO 8601/);
  });
});
