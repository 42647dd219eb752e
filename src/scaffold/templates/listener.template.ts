import type { ModuleNames } from '../module-names.js';

export const countListenerTemplate = (n: ModuleNames): string => `import { Injectable } from '@nestjs/common';
import { KernelListener } from '../../lifecycle/kernel-listener.decorator.js';
import { KernelEvents, type ControllerEvent } from '../../lifecycle/kernel.events.js';
import { ${n.pascal}Repository } from './${n.kebab}.repository.js';

/** The request attribute where the module's handlers find the number of items (\`@RequestAttribute(...)\`). */
export const ${n.snake.toUpperCase()}_COUNT = '${n.camel}Count';

/** The module's own routes, by name (\`@RouteName\`). */
const OWN_ROUTES = /^(api_)?${n.snake}_/;

/**
 * A kernel listener: on the module's routes, once the controller is known, counts the items into a request
 * attribute. It is \`async\`, so the kernel waits for it before the controller runs; a rejection would become the
 * error response. The Events panel of every profile lists it with its priority and its time.
 */
@Injectable()
export class ${n.pascal}CountListener {
  constructor(private readonly items: ${n.pascal}Repository) {}

  @KernelListener(KernelEvents.CONTROLLER)
  async onKernelController(event: ControllerEvent): Promise<void> {
    if (!OWN_ROUTES.test(event.request.routeName ?? '')) return;
    event.request.attributes[${n.snake.toUpperCase()}_COUNT] = await this.items.count();
  }
}
`;
