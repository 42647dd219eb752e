import { Module } from '@nestjs/common';
import { UserRepository } from './user.repository.js';

/** The `users` table's one owner: security (login, the user of a session) and the accounts pages go through it. */
@Module({
  providers: [UserRepository],
  exports: [UserRepository],
})
export class UsersModule {}
