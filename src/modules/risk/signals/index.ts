export { cardBin, cardDigits, cardFingerprint, cardLast4, fingerprintKey } from './card.js';
export { clientIp } from './client-ip.js';
export { countriesDiffer } from './countries.js';
export { emailSignals, type EmailSignals } from './email.js';
export { canonicalIp, isPublicIp } from './ip-address.js';
export {
  countryCode,
  openIpCountries,
  UNKNOWN_COUNTRY,
  type Country,
  type IpCountries,
} from './ip-country.js';
export { cardSubmissionSignals, type CardSubmission, type SignalSources } from './submission.js';
export type { Signals, VelocitySignals } from './types.js';
