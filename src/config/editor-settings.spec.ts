import { EDITOR_TEMPLATES, editorTemplate, parsePathMap } from './editor-settings.js';
import { ConfigurationError } from './configuration.error.js';

describe('editorTemplate', () => {
  it('names no editor when unset or empty', () => {
    expect(editorTemplate(undefined)).toBeNull();
    expect(editorTemplate('  ')).toBeNull();
  });

  it('knows the editors of the issue by name, in any case', () => {
    expect(Object.keys(EDITOR_TEMPLATES)).toEqual([
      'vscode',
      'vscode-insiders',
      'cursor',
      'windsurf',
      'zed',
      'idea',
      'webstorm',
      'phpstorm',
      'sublime',
      'emacs',
      'textmate',
    ]);
    expect(editorTemplate('VSCode')).toBe('vscode://file/%f:%l:%c');
    expect(editorTemplate('phpstorm')).toBe('phpstorm://open?file=%f&line=%l&column=%c');
  });

  it('takes a template of its own, with a scheme and %f', () => {
    expect(editorTemplate('myeditor://open?file=%f&line=%l')).toBe('myeditor://open?file=%f&line=%l');
  });

  it('refuses anything else, naming the setting, and templates that would run script', () => {
    expect(() => editorTemplate('notepad')).toThrow(ConfigurationError);
    expect(() => editorTemplate('notepad')).toThrow(
      /^PROFILER_EDITOR: use one of vscode, vscode-insiders, cursor.* \(got "notepad"\)$/,
    );
    expect(() => editorTemplate('myeditor://open?line=%l')).toThrow(/^PROFILER_EDITOR: /);
    expect(() => editorTemplate('javascript:alert(%f)')).toThrow(/^PROFILER_EDITOR: /);
    expect(() => editorTemplate('data:text/html,%f')).toThrow(/^PROFILER_EDITOR: /);
  });
});

describe('parsePathMap', () => {
  it('reads from:to pairs, longest prefix first, trailing slashes dropped', () => {
    expect(parsePathMap('/app:/home/me/shop/, /app/vendor:/opt/vendor')).toEqual([
      { from: '/app/vendor', to: '/opt/vendor' },
      { from: '/app', to: '/home/me/shop' },
    ]);
  });

  it('keeps the colon of a Windows target', () => {
    expect(parsePathMap('/app:C:\\Users\\me\\shop')).toEqual([{ from: '/app', to: 'C:\\Users\\me\\shop' }]);
  });

  it('is empty when unset, and refuses what is not a pair of paths', () => {
    expect(parsePathMap(undefined)).toEqual([]);
    expect(() => parsePathMap('/app')).toThrow(/^PROFILER_EDITOR_PATH_MAP: "\/app" is not a from:to pair of paths/);
    expect(() => parsePathMap('app:/home/me')).toThrow(ConfigurationError);
  });
});
