import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';
import { Match } from './match.decorator.js';

/** The registration form. */
export class RegistrationDto {
  @IsEmail({}, { message: 'Enter a valid email address.' })
  @MaxLength(254, { message: 'The email address is too long.' })
  email!: string;

  @IsString({ message: 'Choose a password.' })
  @MinLength(8, { message: 'The password must be at least 8 characters long.' })
  @MaxLength(128, { message: 'The password must be at most 128 characters long.' })
  password!: string;

  @IsString({ message: 'Repeat the password.' })
  @Match('password', { message: 'The two passwords do not match.' })
  password_confirmation!: string;
}
