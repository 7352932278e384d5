export const LOCALES = ['en', 'tr'] as const;
export type Locale = (typeof LOCALES)[number];

/** Picks `?lang=` when given, else the first supported language of Accept-Language, else English. */
export function pickLocale(query: string | undefined, acceptLanguage: string | undefined): Locale {
  if (query === 'tr' || query === 'en') return query;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().toLowerCase().slice(0, 2);
    if (tag === 'tr' || tag === 'en') return tag;
  }
  return 'en';
}

export interface ApplyMessages {
  title: string;
  intro: string;
  languageSwitch: string;
  fields: Record<string, { label: string; hint?: string }>;
  verticals: Record<string, string>;
  chooseVertical: string;
  optional: string;
  submit: string;
  submitting: string;
  successTitle: string;
  successBody: string;
  successId: string;
  noscript: string;
  /** Per issue code, or per `field.code` for a message specific to one field. */
  issues: Record<string, string>;
  formErrors: { fix: string; rateLimited: string; generic: string; network: string };
}

const en: ApplyMessages = {
  title: 'Apply for a merchant account',
  intro:
    'Tell us about your business. Underwriting reviews most applications within 48 hours and sends your first API keys to the contact e-mail address.',
  languageSwitch: 'Türkçe',
  fields: {
    companyName: { label: 'Company name' },
    jurisdiction: { label: 'Country of registration' },
    vertical: { label: 'Business vertical' },
    verticalOther: { label: 'Describe your vertical' },
    monthlyVolumeUSD: { label: 'Estimated monthly volume (USD)', hint: 'Whole US dollars; at least 1,000.' },
    currentAcquirer: { label: 'Current acquirer' },
    whySwitching: { label: 'Why are you switching?', hint: 'At most 2,000 characters.' },
    contactName: { label: 'Contact name' },
    contactEmail: { label: 'Contact e-mail' },
    telegram: { label: 'Telegram handle' },
  },
  verticals: {
    forex: 'Forex',
    betting: 'Betting',
    iptv: 'IPTV',
    adult: 'Adult',
    dating: 'Dating',
    nutra: 'Nutra',
    dropshipping: 'Dropshipping',
    cryptoSaaS: 'Crypto SaaS',
    affiliate: 'Affiliate',
    other: 'Other',
  },
  chooseVertical: 'Choose…',
  optional: 'optional',
  submit: 'Submit application',
  submitting: 'Submitting…',
  successTitle: 'Application received',
  successBody:
    'Thank you. Underwriting reviews most applications within 48 hours; we will write to you at the contact address.',
  successId: 'Your application id',
  noscript: 'This form needs JavaScript. You can also apply through the API: POST /v1/applications.',
  issues: {
    required: 'This field is required.',
    too_short: 'This field is required.',
    too_long: 'This is too long.',
    invalid_type: 'This value has the wrong type.',
    invalid_value: 'This value is not allowed.',
    invalid_format: 'This value is not valid.',
    too_small: 'This value is too small.',
    too_large: 'This value is too large.',
    unknown_field: 'This field is not accepted.',
    'contactEmail.invalid_format': 'Enter a valid e-mail address.',
    'monthlyVolumeUSD.too_small': 'The minimum is 1,000 USD.',
    'monthlyVolumeUSD.invalid_type': 'Enter a whole number of US dollars.',
    'whySwitching.too_long': 'At most 2,000 characters.',
    'verticalOther.invalid_value': 'Only needed when the vertical is "Other".',
  },
  formErrors: {
    fix: 'Please correct the highlighted fields.',
    rateLimited: 'Too many applications from your network. Please try again later.',
    generic: 'Something went wrong. Please try again. Reference:',
    network: 'Could not reach the server. Check your connection and try again.',
  },
};

const tr: ApplyMessages = {
  title: 'Üye işyeri başvurusu',
  intro:
    'İşletmenizi tanıtın. Risk ekibimiz başvuruların çoğunu 48 saat içinde inceler ve ilk API anahtarlarınızı iletişim e-posta adresine gönderir.',
  languageSwitch: 'English',
  fields: {
    companyName: { label: 'Şirket adı' },
    jurisdiction: { label: 'Kayıtlı olduğu ülke' },
    vertical: { label: 'Faaliyet alanı' },
    verticalOther: { label: 'Faaliyet alanınızı açıklayın' },
    monthlyVolumeUSD: { label: 'Tahmini aylık hacim (USD)', hint: 'Tam sayı ABD doları; en az 1.000.' },
    currentAcquirer: { label: 'Mevcut ödeme kuruluşu' },
    whySwitching: { label: 'Neden değiştiriyorsunuz?', hint: 'En fazla 2.000 karakter.' },
    contactName: { label: 'İletişim kişisi' },
    contactEmail: { label: 'İletişim e-postası' },
    telegram: { label: 'Telegram kullanıcı adı' },
  },
  verticals: {
    forex: 'Forex',
    betting: 'Bahis',
    iptv: 'IPTV',
    adult: 'Yetişkin',
    dating: 'Arkadaşlık',
    nutra: 'Nutra',
    dropshipping: 'Dropshipping',
    cryptoSaaS: 'Kripto SaaS',
    affiliate: 'Satış ortaklığı',
    other: 'Diğer',
  },
  chooseVertical: 'Seçin…',
  optional: 'isteğe bağlı',
  submit: 'Başvuruyu gönder',
  submitting: 'Gönderiliyor…',
  successTitle: 'Başvurunuz alındı',
  successBody:
    'Teşekkürler. Başvuruların çoğu 48 saat içinde incelenir; size iletişim adresinizden yazacağız.',
  successId: 'Başvuru numaranız',
  noscript: 'Bu form JavaScript gerektirir. API üzerinden de başvurabilirsiniz: POST /v1/applications.',
  issues: {
    required: 'Bu alan zorunludur.',
    too_short: 'Bu alan zorunludur.',
    too_long: 'Bu değer çok uzun.',
    invalid_type: 'Bu değerin türü yanlış.',
    invalid_value: 'Bu değere izin verilmiyor.',
    invalid_format: 'Bu değer geçerli değil.',
    too_small: 'Bu değer çok küçük.',
    too_large: 'Bu değer çok büyük.',
    unknown_field: 'Bu alan kabul edilmiyor.',
    'contactEmail.invalid_format': 'Geçerli bir e-posta adresi girin.',
    'monthlyVolumeUSD.too_small': 'En az 1.000 USD olmalıdır.',
    'monthlyVolumeUSD.invalid_type': 'Tam sayı olarak ABD doları girin.',
    'whySwitching.too_long': 'En fazla 2.000 karakter.',
    'verticalOther.invalid_value': 'Yalnızca faaliyet alanı "Diğer" ise gereklidir.',
  },
  formErrors: {
    fix: 'Lütfen işaretli alanları düzeltin.',
    rateLimited: 'Ağınızdan çok fazla başvuru geldi. Lütfen daha sonra tekrar deneyin.',
    generic: 'Bir sorun oluştu. Lütfen tekrar deneyin. Referans:',
    network: 'Sunucuya ulaşılamadı. Bağlantınızı kontrol edip tekrar deneyin.',
  },
};

export const APPLY_MESSAGES: Record<Locale, ApplyMessages> = { en, tr };

/**
 * The plural form of a count in every language of LOCALES: CLDR gives English and Turkish the same two
 * forms for whole numbers, `one` for exactly 1 and `other` for the rest (src/web/i18n.test.ts holds this
 * against Intl.PluralRules for each locale, so a language with other rules cannot be added unnoticed).
 */
export function pluralForm(count: number | string): 'one' | 'other' {
  return Number(count) === 1 ? 'one' : 'other';
}

const PLURAL = /\{(\w+), plural, one \{([^{}]*)\} other \{([^{}]*)\}\}/g;

/**
 * Fills a message: `{name}` is the value of `name`; `{name, plural, one {# item} other {# items}}` is the
 * form for that count, `#` standing for the number, so that no page says "1 items". The values are plain
 * text: the templates escape the result like any other.
 */
export function fillMessage(template: string, values: Record<string, string | number>): string {
  return template
    .replace(PLURAL, (whole, name: string, one: string, other: string) => {
      const value = values[name];
      if (value === undefined) return whole;
      return (pluralForm(value) === 'one' ? one : other).replace(/#/g, String(value));
    })
    .replace(/\{(\w+)\}/g, (whole, name: string) =>
      values[name] === undefined ? whole : String(values[name]),
    );
}

/** `1 attempt`, `2 attempts`: a count with its noun, for the pages written in English only (the console). */
export function counted(count: number | string, one: string, other: string): string {
  return `${count} ${pluralForm(count) === 'one' ? one : other}`;
}
