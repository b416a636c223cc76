// Errors the CLI reports to the user: a message for stderr and an exit code.

/** Exit codes: 1 when a request failed (server down, rejected, not found), 2 for usage errors and refused values. */
export const EXIT_REQUEST = 1;
export const EXIT_USAGE = 2;

/** The line after a usage error, commander's own and ours alike. */
export const USAGE_HINT = "(add --help for usage)";

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_REQUEST,
    /** the server's HTTP status, when it answered */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A mistake in how the CLI was invoked or configured (exit 2); `--help` says how instead. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

/**
 * A value given in the right place that is refused (a short password, an unreadable import
 * file): exit 2 like a usage error, without pointing at `--help`, which would not say more.
 */
export class InputError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}
