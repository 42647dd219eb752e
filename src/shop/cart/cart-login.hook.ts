import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Authenticator } from '../../security/authenticator.js';
import { sessionOf } from '../../session/session-context.js';
import { CartService } from './cart.service.js';

/** At every login, the visitor's anonymous cart becomes (or joins) the user's cart. */
@Injectable()
export class CartLoginHook implements OnModuleInit {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly cart: CartService,
  ) {}

  onModuleInit(): void {
    this.authenticator.onLogin((context, user) => this.cart.attachToUser(sessionOf(context), user.id));
  }
}
