import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Violation } from './exceptions/validation-failed.exception.js';
import { ValidationFailedException } from './exceptions/validation-failed.exception.js';

export interface FormResult<T> {
  value: T;
  /** Messages by field, for showing next to the inputs; empty when the form is valid. */
  errors: Record<string, string[]>;
  violations: Violation[];
}

/**
 * Validates an HTML form's body with class-validator (same rules as the global pipe: unknown fields refused), for
 * handlers that answer a bad form with the form again (400) rather than an error page.
 */
export async function validateForm<T extends object>(type: new () => T, body: unknown): Promise<FormResult<T>> {
  const plain = body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {};
  const value = plainToInstance(type, plain);
  const failures = await validate(value, { whitelist: true, forbidNonWhitelisted: true });
  const { violations } = ValidationFailedException.fromErrors(failures);
  const errors: Record<string, string[]> = {};
  for (const v of violations) (errors[v.property] ??= []).push(...Object.values(v.constraints));
  return { value, errors, violations };
}
