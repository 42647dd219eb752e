import type { ModuleNames } from './module-names.js';
import { apiControllerTemplate, pageControllerTemplate } from './templates/controllers.template.js';
import { countListenerTemplate } from './templates/listener.template.js';
import { migrationTemplate, migrationsIndexTemplate, schemaTemplate } from './templates/migrations.template.js';
import { moduleTemplate } from './templates/module.template.js';
import { collectorTemplate, profileListenerTemplate, profileTemplate } from './templates/profiler.template.js';
import { dtoTemplate, eventTemplate, repositoryTemplate, serviceTemplate } from './templates/service.template.js';
import { e2eSpecTemplate, serviceSpecTemplate } from './templates/tests.template.js';
import {
  headerLinkTemplate,
  pageViewTemplate,
  panelViewTemplate,
  toolbarViewTemplate,
} from './templates/views.template.js';

/** A file the scaffold writes, by its path from the project's root. */
export interface GeneratedFile {
  path: string;
  content: string;
}

/** The folders a module's files go to: its code, its views, its tests. */
export function moduleFolders(n: ModuleNames): string[] {
  return [`src/shop/${n.kebab}`, `views/shop/${n.kebab}`, `test/shop/${n.kebab}`];
}

/** Every file of a new feature module, in the order they are listed to the developer. */
export function moduleFiles(n: ModuleNames): GeneratedFile[] {
  const [code, views, tests] = moduleFolders(n);
  const files: Array<[string, (names: ModuleNames) => string]> = [
    [`${code}/${n.kebab}.module.ts`, moduleTemplate],
    [`${code}/${n.kebab}.controller.ts`, pageControllerTemplate],
    [`${code}/${n.kebab}-api.controller.ts`, apiControllerTemplate],
    [`${code}/add-${n.kebab}-item.dto.ts`, dtoTemplate],
    [`${code}/${n.kebab}.service.ts`, serviceTemplate],
    [`${code}/${n.kebab}.service.spec.ts`, serviceSpecTemplate],
    [`${code}/${n.kebab}.repository.ts`, repositoryTemplate],
    [`${code}/${n.kebab}.schema.ts`, schemaTemplate],
    [`${code}/${n.kebab}-item-added.event.ts`, eventTemplate],
    [`${code}/${n.kebab}-count.listener.ts`, countListenerTemplate],
    [`${code}/migrations/index.ts`, migrationsIndexTemplate],
    [`${code}/migrations/0001-create-items.ts`, migrationTemplate],
    [`${code}/profiler/${n.kebab}-profile.ts`, profileTemplate],
    [`${code}/profiler/${n.kebab}-profile.listener.ts`, profileListenerTemplate],
    [`${code}/profiler/${n.kebab}.collector.ts`, collectorTemplate],
    [`${views}/index.hbs`, pageViewTemplate],
    [`${views}/slots/header-links.hbs`, headerLinkTemplate],
    [`${views}/profiler/panels/${n.kebab}.hbs`, panelViewTemplate],
    [`${views}/profiler/toolbar/${n.kebab}.hbs`, toolbarViewTemplate],
    [`${tests}/${n.kebab}.e2e-spec.ts`, e2eSpecTemplate],
  ];
  return files.map(([path, template]) => ({ path, content: template(n) }));
}
