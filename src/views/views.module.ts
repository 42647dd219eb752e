import { Module } from '@nestjs/common';
import { ShopViews } from './shop-views.js';

/** The shop's Handlebars partials and page slots (views/), read again on change in development. */
@Module({ providers: [ShopViews] })
export class ViewsModule {}
