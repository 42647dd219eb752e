import type { INestApplication } from '@nestjs/common';
import { parse } from 'node-html-parser';
import request from 'supertest';
import { PasswordHasher } from '../../src/security/password-hasher.js';
import { UserRepository } from '../../src/users/user.repository.js';

export const CUSTOMER_PASSWORD = 'correct horse battery';

/** A browser or a script: a supertest agent that keeps its cookies. */
export type Agent = ReturnType<typeof request.agent>;

let created = 0;

/** Creates an account (ROLE_USER, plus `roles`) and returns its address. */
export async function createCustomer(app: INestApplication, roles: string[] = []): Promise<string> {
  const email = `customer-${process.pid}-${++created}@example.com`;
  const hash = await app.get(PasswordHasher).hash(CUSTOMER_PASSWORD);
  await app.get(UserRepository).create(email, hash, ['ROLE_USER', ...roles]);
  return email;
}

/** The CSRF token of a page's form (the form posting to `action`, or the first form). */
export function formCsrfToken(html: string, action?: string): string {
  const field = action ? `form[action="${action}"] input[name="_csrf_token"]` : 'input[name="_csrf_token"]';
  const value = parse(html).querySelector(field)?.getAttribute('value');
  if (!value) throw new Error(`No CSRF field in the page${action ? ` for ${action}` : ''}`);
  return value;
}

/**
 * Logs `email` in through the login form, as a person does, and returns the login's answer (303 to the page the
 * visitor was sent from, or the account page).
 */
export async function logInWithForm(agent: Agent, email: string, host = 'shop.test'): Promise<request.Response> {
  const form = await agent.get('/login').set('Host', host).expect(200);
  return agent
    .post('/login')
    .set('Host', host)
    .type('form')
    .send({ _csrf_token: formCsrfToken(form.text, '/login'), email, password: CUSTOMER_PASSWORD })
    .expect(303);
}

/** A logged-in customer's agent (the JSON login), with `roles` beside ROLE_USER. */
export async function loggedInCustomer(
  app: INestApplication,
  roles: string[] = [],
  host = 'shop.test',
): Promise<Agent> {
  const email = await createCustomer(app, roles);
  const agent = request.agent(app.getHttpServer());
  await agent
    .post('/api/login')
    .set('Host', host)
    .set('Accept', 'application/json')
    .send({ email, password: CUSTOMER_PASSWORD })
    .expect(200);
  return agent;
}
