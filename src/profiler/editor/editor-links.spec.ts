import { AppConfig } from '../../config/app-config.js';
import { EditorLinks } from './editor-links.js';

const ROOT = '/app';

function links(env: Record<string, string>, enabled = true): EditorLinks {
  const config = AppConfig.fromEnv({ APP_ENV: 'test', APP_DEBUG: '1', ...env }, { projectDir: ROOT });
  return new EditorLinks(config.with({ profiler: { ...config.profiler, enabled } }));
}

describe('EditorLinks', () => {
  const map = { PROFILER_EDITOR_PATH_MAP: '/app:/home/me/shop' };

  it.each([
    ['vscode', 'vscode://file/home/me/shop/src/shop/cart/cart.service.ts:42:7'],
    ['vscode-insiders', 'vscode-insiders://file/home/me/shop/src/shop/cart/cart.service.ts:42:7'],
    ['cursor', 'cursor://file/home/me/shop/src/shop/cart/cart.service.ts:42:7'],
    ['windsurf', 'windsurf://file/home/me/shop/src/shop/cart/cart.service.ts:42:7'],
    ['zed', 'zed://file/home/me/shop/src/shop/cart/cart.service.ts:42:7'],
    ['idea', 'idea://open?file=/home/me/shop/src/shop/cart/cart.service.ts&line=42&column=7'],
    ['webstorm', 'webstorm://open?file=/home/me/shop/src/shop/cart/cart.service.ts&line=42&column=7'],
    ['phpstorm', 'phpstorm://open?file=/home/me/shop/src/shop/cart/cart.service.ts&line=42&column=7'],
    ['sublime', 'subl://open?url=file:///home/me/shop/src/shop/cart/cart.service.ts&line=42&column=7'],
    ['emacs', 'emacs://open?url=file:///home/me/shop/src/shop/cart/cart.service.ts&line=42&column=7'],
    ['textmate', 'txmt://open?url=file:///home/me/shop/src/shop/cart/cart.service.ts&line=42&column=7'],
    ['myeditor://open?file=%f&line=%l', 'myeditor://open?file=/home/me/shop/src/shop/cart/cart.service.ts&line=42'],
  ])('PROFILER_EDITOR=%s links a project file through the path map', (editor, href) => {
    expect(links({ PROFILER_EDITOR: editor, ...map }).href('src/shop/cart/cart.service.ts', 42, 7)).toBe(href);
  });

  it('takes absolute paths as they are, mapped only under the prefix, the most precise prefix first', () => {
    const vscode = links({
      PROFILER_EDITOR: 'vscode',
      PROFILER_EDITOR_PATH_MAP: '/app:/home/me/shop,/app/node_modules:/home/me/cache/modules',
    });
    expect(vscode.href('/app/node_modules/kysely/dist/index.js', 3)).toBe(
      'vscode://file/home/me/cache/modules/kysely/dist/index.js:3:1',
    );
    expect(vscode.href('/application/x.ts', 3)).toBe('vscode://file/application/x.ts:3:1');
    expect(
      links({ PROFILER_EDITOR: 'vscode', PROFILER_EDITOR_PATH_MAP: '/app:C:\\Users\\me\\shop' }).href('src/a.ts', 1),
    ).toBe('vscode://file/C:/Users/me/shop/src/a.ts:1:1');
  });

  it('escapes what would end the path or the query, and writes the attribute form', () => {
    const phpstorm = links({ PROFILER_EDITOR: 'phpstorm' });
    expect(phpstorm.href('src/a b&c#d.ts', 2)).toBe('phpstorm://open?file=/app/src/a%20b%26c%23d.ts&line=2&column=1');
    expect(phpstorm.hrefAttribute('src/"x".ts', 2)).toBe(
      'phpstorm://open?file=/app/src/%22x%22.ts&amp;line=2&amp;column=1',
    );
  });

  it('without an editor leads to the profiler source view of a project file, and nowhere outside the project', () => {
    const none = links({});
    expect(none.opensEditor).toBe(false);
    expect(none.href('src/shop/cart/cart.service.ts', 42, 7)).toBe(
      '/_profiler/open?file=src/shop/cart/cart.service.ts#L42',
    );
    expect(none.href('/app/views/shop/cart.hbs', 1)).toBe('/_profiler/open?file=views/shop/cart.hbs#L1');
    expect(none.href('/etc/passwd', 1)).toBeNull();
    expect(none.href('node:internal/process/task_queues', 95)).toBeNull();
    expect(links({}, false).href('src/a.ts', 1)).toBeNull();
  });

  it("has no link for Node's modules, whatever the editor", () => {
    expect(links({ PROFILER_EDITOR: 'vscode' }).href('node:events', 524)).toBeNull();
  });
});
