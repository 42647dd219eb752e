import { Controller, Get, Render } from '@nestjs/common';
import { RequestAttribute } from '../../lifecycle/request-attribute.decorator.js';
import { RouteName } from '../../lifecycle/routing/route-name.decorator.js';

@Controller()
export class HomeController {
  @Get()
  @RouteName('shop_home')
  @Render('shop/home')
  home(@RequestAttribute('_locale') locale: string): { title: string; locale: string } {
    return { title: 'Shopkernel', locale };
  }
}
