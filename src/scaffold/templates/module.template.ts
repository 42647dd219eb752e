import type { ModuleNames } from '../module-names.js';

export const moduleTemplate = (n: ModuleNames): string => `import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../database/database.module.js';
import { ${n.pascal}ApiController } from './${n.kebab}-api.controller.js';
import { ${n.pascal}CountListener } from './${n.kebab}-count.listener.js';
import { ${n.pascal}Repository } from './${n.kebab}.repository.js';
import { ${n.pascal}Controller } from './${n.kebab}.controller.js';
import { ${n.pascal}Service } from './${n.kebab}.service.js';
import { ${n.snake.toUpperCase()}_MIGRATIONS } from './migrations/index.js';
import { ${n.pascal}ProfileListener } from './profiler/${n.kebab}-profile.listener.js';
import { ${n.pascal}Collector } from './profiler/${n.kebab}.collector.js';

/**
 * ${n.label}: a page (\`/${n.kebab}\`) and a JSON API (\`/api/${n.kebab}\`) over the \`${n.snake}_items\` table, a kernel
 * listener, and a profiler panel with its toolbar block. Its views are in \`views/shop/${n.kebab}/\`, its tests in
 * \`test/shop/${n.kebab}/\`; AppModule imports it.
 */
@Module({
  imports: [DatabaseModule.forFeature({ migrations: ${n.snake.toUpperCase()}_MIGRATIONS })],
  controllers: [${n.pascal}Controller, ${n.pascal}ApiController],
  providers: [
    ${n.pascal}Repository,
    ${n.pascal}Service,
    ${n.pascal}CountListener,
    ${n.pascal}ProfileListener,
    ${n.pascal}Collector,
  ],
})
export class ${n.pascal}Module {}
`;
