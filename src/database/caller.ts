import { dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { callSites, type CallSites, type StackEntry } from '../lifecycle/call-sites.js';
import { remembered } from '../lifecycle/remembered.js';

/** Where a query was issued: a raw V8 position (a compiled dist/*.js file in production), mapped when shown. */
export interface CallerPosition {
  /** Absolute path (or file: URL) of the script, as V8 names it. */
  file: string;
  line: number;
  column: number;
}

/**
 * Frames captured first: enough to climb from the recorder through Kysely's executor and builder methods to the
 * caller (the fifth to eighth frame in the shop's queries). A stack that fills them without reaching the caller
 * is captured again, deeper. Each frame costs V8 a CallSite, so the first capture stays small.
 */
const STACK_LIMIT = 10;
/** The second capture's depth, for callers further up (a query built through layers of the application's own). */
const DEEP_STACK_LIMIT = 32;
/**
 * This module's folder: src/database in TypeScript, dist/database once built. Frames inside it are the data
 * layer's own (specs beside the code excepted: they are callers like any other).
 */
const OWN_DIR = dirname(fileURLToPath(import.meta.url)) + sep;
const NODE_MODULES = `${sep}node_modules${sep}`;
/**
 * The same as V8 names the frames of ES modules (file: URLs, as Node's loader built them from the same paths): the
 * frames passed over are recognised without turning each URL into a path (parsing a URL each time would be a good
 * part of a capture's cost).
 */
const OWN_DIR_URL = pathToFileURL(OWN_DIR).href;
const NODE_MODULES_URL = '/node_modules/';

export type { StackEntry };

/**
 * Paths by module URL: the same few modules issue every query, and `fileURLToPath` parses the URL each time (a
 * good part of a capture's cost). Bounded all the same, as a cache must be.
 */
const PATHS = new Map<string, string>();
const PATHS_KEPT = 4096;

/**
 * Frames captured below a known entry point (see captureCaller's `entry`): its caller, or Kysely's own
 * executeTakeFirst and executeTakeFirstOrThrow, which call `execute` in turn, and then the caller.
 */
const ENTRY_STACK_LIMIT = 4;

/**
 * The first stack frame outside node_modules, Node itself and src/database: the code that issued the query.
 * Cheap by design: a small captured stack of V8 CallSites, no string formatting, no source map; the position is
 * mapped to TypeScript (SourceResolver) only when somebody opens the database panel.
 *
 * `entry`: a function known to be on the stack between here and the caller (a query builder's `execute`). V8 then
 * leaves out every frame above it (the recorder's and Kysely's own), so a few frames suffice, a fraction of a full
 * capture's cost. Without it, or when it is not on the stack (a query run another
 * way), the frames are captured from here.
 */
export function captureCaller(entry?: StackEntry): CallerPosition | null {
  if (entry !== undefined) {
    const caller = firstCaller(callSites(ENTRY_STACK_LIMIT, entry));
    if (caller !== null) return caller;
  }
  const sites = callSites(STACK_LIMIT, captureCaller);
  const caller = firstCaller(sites);
  if (caller !== null || sites.length < STACK_LIMIT) return caller;
  return firstCaller(callSites(DEEP_STACK_LIMIT, captureCaller));
}

function firstCaller(sites: CallSites): CallerPosition | null {
  for (const site of sites) {
    const file = callerFile(site.getFileName());
    if (file !== null) return { file, line: site.getLineNumber() ?? 0, column: site.getColumnNumber() ?? 0 };
  }
  return null;
}

/** A frame's script as a path when the frame can be the caller; null for Node's, a package's or the data layer's. */
export function callerFile(name: string | null | undefined): string | null {
  if (!name || name.startsWith('node:')) return null;
  if (name.startsWith('file://')) {
    if (name.includes(NODE_MODULES_URL) || (name.startsWith(OWN_DIR_URL) && !name.endsWith('.spec.ts'))) return null;
    return remembered(PATHS, name, fileURLToPath, PATHS_KEPT);
  }
  if (name.includes(NODE_MODULES) || (name.startsWith(OWN_DIR) && !name.endsWith('.spec.ts'))) return null;
  return name;
}
