import { accessSync, constants, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Creates a directory and its missing parents, one at a time: Node's `mkdir(…, { recursive: true })` never returns
 * when the parent exists but refuses children with ENOENT (a path under /proc), and the application would hang at
 * start instead of saying why.
 */
export async function createDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EEXIST' && statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw error;
    await createDirectory(dirname(dir));
    await mkdir(dir).catch((again: unknown) => {
      if ((again as { code?: unknown }).code !== 'EEXIST') throw again;
    });
  }
}

/**
 * What a failed mkdir or SQLite's bare "unable to open database file" means for a SQLite file (the shop's database,
 * the profile store), found by looking at the file and its directory; undefined when their own words say it.
 */
export function whyCannotOpen(file: string, error: unknown): string | undefined {
  try {
    return diagnose(file, error);
  } catch {
    // Looking failed too: the error's own words then.
    return undefined;
  }
}

function diagnose(file: string, error: unknown): string | undefined {
  const { code, syscall, path } = (error ?? {}) as { code?: unknown; syscall?: unknown; path?: unknown };
  if (syscall === 'mkdir') {
    if (code === 'EEXIST' || code === 'ENOTDIR')
      return `its directory cannot be created: ${existingAncestor(String(path))} is not a directory (${code})`;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      return `its directory ${String(path)} cannot be created: permission denied (${code})`;
    if (code === 'ENOENT') return `its directory ${String(path)} cannot be created (${code})`;
    return undefined;
  }
  if (code !== 'SQLITE_CANTOPEN') return undefined;
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) return 'it is a directory (SQLITE_CANTOPEN)';
  const dir = dirname(file);
  // SQLite creates the file, and its -wal and -shm files, beside it.
  const dirDenied = denied(dir, constants.W_OK | constants.X_OK);
  if (dirDenied) return `its directory ${dir} is not writable (${dirDenied}, SQLITE_CANTOPEN)`;
  const fileDenied = statSync(file, { throwIfNoEntry: false })
    ? denied(file, constants.R_OK | constants.W_OK)
    : undefined;
  if (fileDenied) return `the file cannot be read and written (${fileDenied}, SQLITE_CANTOPEN)`;
  return undefined;
}

/** The error code access(2) gives for this mode, or undefined when it allows it. */
function denied(target: string, mode: number): string | undefined {
  try {
    accessSync(target, mode);
    return undefined;
  } catch (failure) {
    return String((failure as { code?: unknown }).code);
  }
}

/** The path itself or its nearest ancestor that exists: where a directory cannot go on. */
function existingAncestor(path: string): string {
  let current = path;
  while (!exists(current) && dirname(current) !== current) current = dirname(current);
  return current;
}

/** Whether something is at this path (ENOTDIR, a file on the way, is "no"). */
function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A driver's message with its error code (SQLite's `SQLITE_READONLY`), which the message alone does not name. */
export function describeOpenFailure(error: unknown): string {
  const { message, code, errors } = (error ?? {}) as { message?: unknown; code?: unknown; errors?: unknown };
  // A connection refused on every address of a host name: an AggregateError without a message of its own.
  if ((typeof message !== 'string' || message === '') && Array.isArray(errors) && errors.length > 0)
    return errors.map(describeOpenFailure).join('; ');
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}
