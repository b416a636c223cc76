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

  it("reads a time without an offset as UTC, as a date alone is, whatever this machine's time zone", () => {
    const zone = process.env.TZ;
    try {
      for (const tz of ["America/Los_Angeles", "Asia/Kolkata", "UTC"]) {
        process.env.TZ = tz; // before, "2027-01-31T00:00" was local midnight and "2027-01-31" UTC midnight
        expect(parseTime("2027-01-31T00:00"), tz).toBe(parseTime("2027-01-31"));
        expect(parseTime("2027-01-31 09:30"), tz).toBe("2027-01-31T09:30:00.000Z");
        expect(parseTime("2027-01-31T09:30:15.250"), tz).toBe("2027-01-31T09:30:15.250Z");
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("refuses what is neither", () => {
    expect(() => parseTime("20270131")).toThrow(/ISO 8601 time .* or integer nanoseconds/);
    expect(() => parseTime("tomorrow")).toThrow(/ISO 8601/);
    // Date.parse's lenient readings: "12" was December 2001, "Jan 31 2027" a local time
    for (const loose of ["12", "Jan 31 2027", "2027/01/31", "31.01.2027"]) expect(() => parseTime(loose), loose).toThrow(/ISO 8601/);
  });

  it("refuses a date that is not in the calendar (it was moved on: 2027-02-30 as March 2)", () => {
    for (const bad of ["2027-02-30", "2027-06-31", "2027-13-01", "2027-00-10", "2027-01-31T24:00:00Z", "2027-01-31T12:60Z"]) {
      expect(() => parseTime(bad), bad).toThrow(/not a date of the calendar/);
    }
    expect(parseTime("2028-02-29")).toBe("2028-02-29T00:00:00.000Z");
    expect(parseTime("2027-01-31T12:00Z")).toBe("2027-01-31T12:00:00.000Z");
    expect(parseTime("2027-01-31T12:00:00.5+0200")).toBe("2027-01-31T10:00:00.500Z");
  });
});
