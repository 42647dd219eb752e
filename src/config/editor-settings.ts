import { ConfigurationError } from './configuration.error.js';

/**
 * The URL each known editor registers with the system, `%f` the absolute file, `%l` the line, `%c` the column
 * (the forms Symfony's FileLinkFormatter and the editors' own documentation give).
 */
export const EDITOR_TEMPLATES: Readonly<Record<string, string>> = {
  vscode: 'vscode://file/%f:%l:%c',
  'vscode-insiders': 'vscode-insiders://file/%f:%l:%c',
  cursor: 'cursor://file/%f:%l:%c',
  windsurf: 'windsurf://file/%f:%l:%c',
  zed: 'zed://file/%f:%l:%c',
  idea: 'idea://open?file=%f&line=%l&column=%c',
  webstorm: 'webstorm://open?file=%f&line=%l&column=%c',
  phpstorm: 'phpstorm://open?file=%f&line=%l&column=%c',
  sublime: 'subl://open?url=file://%f&line=%l&column=%c',
  emacs: 'emacs://open?url=file://%f&line=%l&column=%c',
  textmate: 'txmt://open?url=file://%f&line=%l&column=%c',
};

/** Schemes a link must never have, whatever the template says: they would run code in the profiler's page. */
const UNSAFE_SCHEME = /^\s*(javascript|data|vbscript):/i;

/**
 * PROFILER_EDITOR as a URL template: an editor's name, or a template of its own (a URL with a scheme and `%f`).
 * Null when unset; an error naming the setting for anything else.
 */
export function editorTemplate(setting: string | undefined): string | null {
  if (setting === undefined || setting.trim() === '') return null;
  const named = EDITOR_TEMPLATES[setting.trim().toLowerCase()];
  if (named) return named;
  if (/^[a-z][a-z0-9+.-]*:/i.test(setting) && setting.includes('%f') && !UNSAFE_SCHEME.test(setting))
    return setting.trim();
  throw new ConfigurationError(
    'PROFILER_EDITOR',
    `use one of ${Object.keys(EDITOR_TEMPLATES).join(', ')}, or a URL template with %f (file) and %l (line), such as myeditor://open?file=%f&line=%l (got ${JSON.stringify(setting)})`,
  );
}

/** One prefix of the paths this process sees, and the same place on the machine where the editor runs. */
export interface PathMapping {
  from: string;
  to: string;
}

/**
 * PROFILER_EDITOR_PATH_MAP: `from:to` pairs separated by commas (`/app:/home/me/shop`), split at the first colon
 * (a Windows target such as `/app:C:\shop` keeps its own). Longest prefix first, so that the most precise wins.
 */
export function parsePathMap(setting: string | undefined): PathMapping[] {
  if (setting === undefined || setting.trim() === '') return [];
  return setting
    .split(',')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '')
    .map((pair) => {
      const colon = pair.indexOf(':');
      const from = colon > 0 ? pair.slice(0, colon).replace(/\/+$/, '') : '';
      const to = colon > 0 ? pair.slice(colon + 1).replace(/[\\/]+$/, '') : '';
      if (!from.startsWith('/') || to === '')
        throw new ConfigurationError(
          'PROFILER_EDITOR_PATH_MAP',
          `"${pair}" is not a from:to pair of paths, such as /app:/home/me/shop`,
        );
      return { from, to };
    })
    .sort((a, b) => b.from.length - a.from.length);
}
