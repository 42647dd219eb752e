import { Module } from '@nestjs/common';
import { AccountsApiController } from './accounts-api.controller.js';
import { AccountsController } from './accounts.controller.js';
import { AdminController } from './admin.controller.js';
import { UsersModule } from '../../users/users.module.js';

/** Customer accounts: registration, login and logout (HTML and JSON), the account page, the back office. */
@Module({
  controllers: [AccountsController, AccountsApiController, AdminController],
  imports: [UsersModule],
})
export class AccountsModule {}
