import { ValidationPipe } from '@nestjs/common';
import { BadRequestHttpException } from './exceptions/bad-request-http.exception.js';
import { ValidationFailedException } from './exceptions/validation-failed.exception.js';

/**
 * class-validator on every DTO: unknown properties refused, values transformed to their declared types; a
 * failure is a 400 BadRequestHttpException wrapping a ValidationFailedException that lists the violations.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors) => {
      const failure = ValidationFailedException.fromErrors(errors);
      return new BadRequestHttpException(failure.message, failure);
    },
  });
}
