/** What a command reads and writes, passed down so tests can drive commands in-process. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Resolves when the user asks to stop (first SIGINT/SIGTERM); commands that run long await it. */
  readonly interrupted: Promise<void>;
  /** True after the first interrupt. */
  isInterrupted(): boolean;
}

/** A command's action: resolves to the process exit code. */
export type CommandAction = () => Promise<number>;
