import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Redactor } from '../lifecycle/redaction/redactor.js';

/** Whether the module at `moduleUrl` (its `import.meta.url`) is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  try {
    return process.argv[1] !== undefined && pathToFileURL(realpathSync(process.argv[1])).href === moduleUrl;
  } catch {
    return false;
  }
}

/**
 * Opens a resource, runs a command on it and always closes it; resolves with the exit code (0, or 1 with the
 * error's message, redacted, on `err`).
 */
export async function runWith<R>(
  open: () => Promise<R> | R,
  close: (resource: R) => Promise<unknown>,
  action: (resource: R) => Promise<void>,
  err: (text: string) => void,
): Promise<number> {
  let resource: R | undefined;
  try {
    resource = await open();
    await action(resource);
    return 0;
  } catch (error) {
    err(`Error: ${Redactor.text((error as Error)?.message ?? String(error))}\n`);
    return 1;
  } finally {
    if (resource !== undefined) await close(resource).catch(() => undefined);
  }
}
