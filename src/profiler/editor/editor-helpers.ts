import type hbs from 'hbs';
import type { EditorLinks } from './editor-links.js';
import type { SourceIndex } from './source-index.js';

type Handlebars = ReturnType<typeof hbs.create>['handlebars'];

/**
 * The templates' file:line links (EditorLinks decides where they lead):
 * - `{{callerLink "src/x.ts:12"}}`: a position already written as text (the Database panel's callers);
 * - `{{symbolLink "CartController::add"}}`: a class or method the project declares (controllers, listeners, access
 *   decisions' subjects);
 * - `{{templateLink "shop/catalogue/product"}}`: a view's file.
 * Each shows the plain text when there is nowhere to lead. Paths may wrap after a slash or a dot, never in a name.
 * (The error page's frames and excerpts get theirs inside `exception_frames`, cached with the frames' HTML.)
 */
export function registerEditorHelpers(handlebars: Handlebars, links: EditorLinks, sources: SourceIndex): void {
  const link = (href: string | null, html: string): InstanceType<Handlebars['SafeString']> =>
    new handlebars.SafeString(
      href === null ? html : `<a class="file-link" href="${handlebars.escapeExpression(href)}">${html}</a>`,
    );
  const breakable = (text: string): string =>
    text
      .split(/(?<=[/.])/)
      .map((part) => handlebars.escapeExpression(part))
      .join('<wbr>');

  handlebars.registerHelper('callerLink', (caller: unknown) => {
    const text = String(caller ?? '');
    const match = /^(.*?):(\d+)(?::(\d+))?$/.exec(text);
    return link(match ? links.href(match[1], Number(match[2]), Number(match[3] ?? 1)) : null, breakable(text));
  });
  handlebars.registerHelper('symbolLink', (name: unknown) => {
    const text = String(name ?? '');
    const place = text === '' ? null : sources.symbol(text);
    // `CartController::<wbr>add`: a narrow column breaks between the class and the method, never inside a name.
    const html = text
      .split(/(?<=::)/)
      .map((part) => handlebars.escapeExpression(part))
      .join('<wbr>');
    return link(place ? links.href(place.file, place.line) : null, html);
  });
  handlebars.registerHelper('templateLink', (name: unknown) => {
    const text = String(name ?? '');
    const place = sources.template(text);
    return link(place ? links.href(place.file, place.line) : null, handlebars.escapeExpression(text));
  });
}
