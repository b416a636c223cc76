// Where the CLI writes: stdout for results, stderr for errors and warnings.

export type Io = {
  out: (text: string) => void;
  err: (text: string) => void;
  /** stderr is a terminal (progress is then drawn in place) */
  errIsTerminal?: boolean;
};

export const processIo: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  errIsTerminal: process.stderr.isTTY === true,
};

/** Writes `text` followed by a newline, unless it already ends with one. */
export function line(write: (text: string) => void, text = ""): void {
  write(text.endsWith("\n") ? text : `${text}\n`);
}
