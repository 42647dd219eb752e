import { Transform } from 'class-transformer';
import { IsIn, IsString, Length, Matches } from 'class-validator';

/** Countries the shop delivers to, by ISO 3166 code. */
export const COUNTRIES: Readonly<Record<string, string>> = Object.freeze({
  AT: 'Austria',
  BE: 'Belgium',
  DE: 'Germany',
  ES: 'Spain',
  FR: 'France',
  IE: 'Ireland',
  IT: 'Italy',
  LU: 'Luxembourg',
  NL: 'Netherlands',
  PT: 'Portugal',
});

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** The delivery address given at checkout. */
export class CheckoutDto {
  @Transform(trim)
  @IsString({ message: 'Enter the name of the recipient.' })
  @Length(1, 100, { message: 'The name must be 1 to 100 characters long.' })
  name!: string;

  @Transform(trim)
  @IsString({ message: 'Enter the street and number.' })
  @Length(1, 200, { message: 'The street must be 1 to 200 characters long.' })
  street!: string;

  @Transform(trim)
  @IsString({ message: 'Enter the postcode.' })
  @Matches(/^[A-Za-z0-9][A-Za-z0-9 -]{1,10}$/, { message: 'Enter a valid postcode.' })
  postcode!: string;

  @Transform(trim)
  @IsString({ message: 'Enter the city.' })
  @Length(1, 100, { message: 'The city must be 1 to 100 characters long.' })
  city!: string;

  @IsIn(Object.keys(COUNTRIES), { message: 'We do not deliver to this country.' })
  country!: string;
}
