/** The build folder, relative to the project (or absolute): `.next`, or NEXT_DIST_DIR for a second build beside it. */
export const buildDir = (): string => process.env.NEXT_DIST_DIR || ".next";
