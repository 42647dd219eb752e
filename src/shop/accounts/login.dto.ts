import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

/** The login form (and the JSON login's body). */
export class LoginDto {
  @IsString({ message: 'Enter your email address.' })
  @MaxLength(254)
  email!: string;

  @IsString({ message: 'Enter your password.' })
  @MaxLength(128)
  password!: string;

  /** The "remember me" checkbox. */
  @IsOptional()
  @IsIn(['on', '1', 'true', true])
  _remember_me?: string | boolean;
}
