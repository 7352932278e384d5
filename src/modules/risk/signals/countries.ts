import { countryCode, UNKNOWN_COUNTRY, type Country } from './ip-country.js';

/**
 * Whether the card's issuing country (its BIN row's) and the client address's country differ. An
 * unknown side never differs: no BIN row, no address or a private one is no evidence.
 */
export function countriesDiffer(
  cardCountry: string | null | undefined,
  ipCountry: string | null | undefined,
): boolean {
  const card: Country = countryCode(cardCountry);
  const ip: Country = countryCode(ipCountry);
  return card !== UNKNOWN_COUNTRY && ip !== UNKNOWN_COUNTRY && card !== ip;
}
