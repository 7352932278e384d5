import maxmind, { type Reader, type Response } from 'maxmind';
import { canonicalIp, isPublicIp } from './ip-address.js';

/** An ISO 3166-1 alpha-2 code in capitals, or `unknown`. */
export type Country = string;
export const UNKNOWN_COUNTRY = 'unknown';

/** The IP-to-country database, opened once. */
export interface IpCountries {
  /** The country of a public address; `unknown` for any other address, text that is none, or no record. */
  countryOf(ip: string | null): Country;
}

/** A record of an ip-location-db country database (the default `@ip-location-db/geo-whois-asn-country-mmdb`). */
interface CountryRecord {
  country_code?: unknown;
}

const ALPHA_2 = /^[A-Z]{2}$/;

/**
 * Opens an `.mmdb` file once (read whole into memory). Only public unicast addresses are looked up:
 * loopback, private, link-local, CGNAT, unique-local and every other special range is `unknown` whatever
 * the file says (the default database gives 192.168.0.0/16 a country). An IPv4-mapped IPv6 address is
 * looked up as its IPv4 address.
 */
export async function openIpCountries(databasePath: string): Promise<IpCountries> {
  const reader: Reader<Response> = await maxmind.open(databasePath);
  return {
    countryOf(ip) {
      const address = canonicalIp(ip);
      if (address === null || !isPublicIp(address)) return UNKNOWN_COUNTRY;
      const record = reader.get(address) as CountryRecord | null;
      return countryCode(record?.country_code);
    },
  };
}

/** A country as the signals carry it: two capital letters, or `unknown`. */
export function countryCode(value: unknown): Country {
  if (typeof value !== 'string') return UNKNOWN_COUNTRY;
  const code = value.trim().toUpperCase();
  return ALPHA_2.test(code) ? code : UNKNOWN_COUNTRY;
}
