import ts from 'typescript';

/** What to add to AppModule: the class and the path of its file from `src/app.module.ts`. */
export interface ModuleImport {
  className: string;
  /** `./shop/wishlist/wishlist.module.js` */
  from: string;
}

/**
 * AppModule's source with `module` imported and listed last in its `@Module({ imports: [...] })`, as `nest g
 * module` does; unchanged when it is there already. The file is read with TypeScript's parser, so its layout and
 * comments stay as they were.
 */
export function withModuleImport(source: string, module: ModuleImport): string {
  const file = ts.createSourceFile('app.module.ts', source, ts.ScriptTarget.Latest, true);
  const list = moduleImportsList(file);
  if (!list)
    throw new Error(
      `src/app.module.ts has no @Module({ imports: [...] }): add ${module.className} to its imports by hand.`,
    );
  if (list.elements.some((element) => element.getText(file) === module.className)) return source;

  const withEntry = insertAt(source, ...listEntry(source, file, list, module.className));
  const statements = file.statements.filter(ts.isImportDeclaration);
  const importAt = statements.length > 0 ? statements[statements.length - 1].getEnd() : 0;
  const importLine = `import { ${module.className} } from '${module.from}';`;
  return insertAt(withEntry, importAt, importAt > 0 ? `\n${importLine}` : `${importLine}\n`);
}

/**
 * Where and how the class joins the list: on a line of its own after the last entry's line (its trailing comma and
 * comment stay with it) when the list is written one entry per line, else after the last entry.
 */
function listEntry(
  source: string,
  file: ts.SourceFile,
  list: ts.ArrayLiteralExpression,
  className: string,
): [number, string] {
  const last = list.elements.at(-1);
  if (!last) return [list.getStart(file) + 1, className];
  if (!list.elements.hasTrailingComma) return [last.getEnd(), `, ${className}`];
  const lineEnd = source.indexOf('\n', last.getEnd());
  return [lineEnd, `\n${leadingIndent(source, last.getStart(file))}${className},`];
}

function insertAt(source: string, at: number, text: string): string {
  return source.slice(0, at) + text + source.slice(at);
}

function moduleImportsList(file: ts.SourceFile): ts.ArrayLiteralExpression | undefined {
  for (const statement of file.statements) {
    if (!ts.isClassDeclaration(statement)) continue;
    for (const decorator of ts.getDecorators(statement) ?? []) {
      const call = decorator.expression;
      if (!ts.isCallExpression(call) || call.expression.getText(file) !== 'Module') continue;
      const options = call.arguments[0];
      if (!options || !ts.isObjectLiteralExpression(options)) continue;
      for (const property of options.properties) {
        if (
          ts.isPropertyAssignment(property) &&
          property.name.getText(file) === 'imports' &&
          ts.isArrayLiteralExpression(property.initializer)
        )
          return property.initializer;
      }
    }
  }
  return undefined;
}

function leadingIndent(source: string, at: number): string {
  const lineStart = source.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(source.slice(lineStart, at))![0];
}
