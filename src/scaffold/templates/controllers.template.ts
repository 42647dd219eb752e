import type { ModuleNames } from '../module-names.js';

export const pageControllerTemplate = (
  n: ModuleNames,
): string => `import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { validateForm } from '../../lifecycle/validate-form.js';
import { CsrfProtected } from '../../security/csrf/csrf-protected.decorator.js';
import { CurrentSession } from '../../session/current-session.decorator.js';
import type { Session } from '../../session/session.js';
import { Add${n.pascal}ItemDto } from './add-${n.kebab}-item.dto.js';
import { ${n.snake.toUpperCase()}_COUNT } from './${n.kebab}-count.listener.js';
import { ${n.pascal}Service } from './${n.kebab}.service.js';

const VIEW = 'shop/${n.kebab}/index';

/**
 * The page (\`GET /${n.kebab}\`) and its form (\`POST /${n.kebab}\`): a valid form adds the item and redirects (303) with
 * a flash message; an invalid one shows the page again with the problems, answering 400. Open to every visitor:
 * \`@IsGranted('ROLE_USER')\` on the class would send visitors to the login page first.
 */
@Controller('${n.kebab}')
export class ${n.pascal}Controller {
  constructor(private readonly ${n.camel}: ${n.pascal}Service) {}

  @Get()
  @RouteName('${n.snake}_index')
  async index(@RequestAttribute() request: KernelRequest, @Res() res: Response): Promise<void> {
    res.render(VIEW, await this.page(request, ''));
  }

  @Post()
  @RouteName('${n.snake}_add')
  @CsrfProtected('${n.kebab}')
  async add(
    @RequestAttribute() request: KernelRequest,
    @Body() body: Record<string, unknown>,
    @CurrentSession() session: Session,
    @Res() res: Response,
  ): Promise<void> {
    const { value, errors } = await validateForm(Add${n.pascal}ItemDto, body);
    if (Object.keys(errors).length > 0) {
      const name = typeof body.name === 'string' ? body.name : '';
      return res.status(400).render(VIEW, { ...(await this.page(request, name)), errors, failed: true });
    }
    const item = await this.${n.camel}.add(value.name);
    session.addFlash('success', \`Added \${item.name}.\`);
    res.redirect(303, '/${n.kebab}');
  }

  /** What the page shows: \`title\` and \`locale\` are the layout's. */
  private async page(request: KernelRequest, name: string): Promise<object> {
    const count = Number(request.attributes[${n.snake.toUpperCase()}_COUNT] ?? 0);
    return {
      title: '${n.label} – Shopkernel',
      locale: request.locale,
      items: await this.${n.camel}.list(),
      count: \`\${count} item\${count === 1 ? '' : 's'}\`,
      form: { name },
      errors: {},
    };
  }
}
`;

export const apiControllerTemplate = (
  n: ModuleNames,
): string => `import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';
import { Add${n.pascal}ItemDto } from './add-${n.kebab}-item.dto.js';
import { ${n.snake.toUpperCase()}_COUNT } from './${n.kebab}-count.listener.js';
import type { ${n.pascal}Item } from './${n.kebab}.schema.js';
import { ${n.pascal}Service } from './${n.kebab}.service.js';

/** An item as the JSON API shows it. */
export interface ${n.pascal}ItemJson {
  id: number;
  name: string;
  addedAt: string;
}

const json = (item: ${n.pascal}Item): ${n.pascal}ItemJson => ({ id: item.id, name: item.name, addedAt: item.created_at });

/**
 * The JSON API: \`GET /api/${n.kebab}\` and \`POST /api/${n.kebab}\` (\`{ "name": "..." }\`, 201). Unsafe methods under
 * \`/api/\` accept JSON from this site only (no CSRF token needed); an invalid body is a 400 problem that lists every
 * violation.
 */
@Controller('api/${n.kebab}')
export class ${n.pascal}ApiController {
  constructor(private readonly ${n.camel}: ${n.pascal}Service) {}

  @Get()
  @RouteName('api_${n.snake}_list')
  async list(
    @RequestAttribute(${n.snake.toUpperCase()}_COUNT) count: number,
  ): Promise<{ count: number; items: ${n.pascal}ItemJson[] }> {
    return { count, items: (await this.${n.camel}.list()).map(json) };
  }

  @Post()
  @RouteName('api_${n.snake}_add')
  @HttpCode(201)
  async add(@Body() item: Add${n.pascal}ItemDto): Promise<${n.pascal}ItemJson> {
    return json(await this.${n.camel}.add(item.name));
  }
}
`;
