import { Module } from '@nestjs/common';
import { HomeController } from './home.controller.js';

@Module({ controllers: [HomeController] })
export class HomeModule {}
