import type { Locale } from '../../web/i18n.js';

/** Why a password was refused, as the pages name it. */
export type PasswordProblemKey = 'too_short' | 'too_long' | 'repeated' | 'contains_email';

/** The navigation, the shared words of forms, and the error pages of every area. */
export interface ShellMessages {
  languageSwitch: string;
  brand: string;
  nav: {
    home: string;
    security: string;
    apiKeys: string;
    settlements: string;
    customers: string;
    disputes: string;
    disputeRatios: string;
    logout: string;
    /** The navigation's groups and the links added with the application shell. */
    payments: string;
    exports: string;
    money: string;
    /** The balance cards, the next batch and the payouts. */
    balance: string;
    wallets: string;
    developers: string;
    webhooks: string;
    events: string;
    settings: string;
    team: string;
    branding: string;
    autoRefunds: string;
    /** The navigation landmark's name. */
    menu: string;
    skipToContent: string;
    /** `{environment}`: the environment shown. */
    viewing: string;
    /** The banner over every page of the sandbox environment. */
    testMode: string;
    signedInAs: string;
  };
  common: {
    email: string;
    password: string;
    newPassword: string;
    passwordConfirmation: string;
    passwordHint: string;
    name: string;
    optional: string;
    backToLogin: string;
    noscript: string;
  };
  errors: {
    csrf: string;
    rateLimited: string;
    generic: string;
    notFound: string;
    cardNumber: string;
    passwordMismatch: string;
    password: Record<PasswordProblemKey, string>;
  };
}

const en: ShellMessages = {
  languageSwitch: 'Türkçe',
  brand: 'Gateway dashboard',
  nav: {
    home: 'Dashboard',
    security: 'Security',
    apiKeys: 'API keys',
    settlements: 'Settlements',
    customers: 'Customers',
    disputes: 'Disputes',
    disputeRatios: 'Chargeback ratios',
    logout: 'Sign out',
    payments: 'Payments',
    exports: 'Exports',
    money: 'Balance and payouts',
    balance: 'Balance',
    wallets: 'Wallets',
    developers: 'Developers',
    webhooks: 'Webhooks',
    events: 'Events',
    settings: 'Settings',
    team: 'Team',
    branding: 'Branding',
    autoRefunds: 'Auto-refund rules',
    menu: 'Dashboard menu',
    skipToContent: 'Skip to content',
    viewing: '{environment} data',
    testMode:
      'Test mode: you are looking at sandbox data. Nothing here moves real money, and sandbox balances never reach a real wallet.',
    signedInAs: 'Signed in as',
  },
  common: {
    email: 'E-mail address',
    password: 'Password',
    newPassword: 'New password',
    passwordConfirmation: 'Repeat the new password',
    passwordHint: 'At least 12 characters. A long passphrase is best.',
    name: 'Your name',
    optional: 'optional',
    backToLogin: 'Back to sign in',
    noscript: 'This page needs JavaScript.',
  },
  errors: {
    csrf: 'The form has expired or did not come from this site. Reload the page and try again.',
    rateLimited: 'Too many attempts from your network. Wait a few minutes and try again.',
    generic: 'Something went wrong. Please try again. Reference:',
    notFound: 'This page does not exist.',
    cardNumber:
      'The form holds what looks like a card number. Card numbers are never entered here: go back, remove it and send the form again.',
    passwordMismatch: 'The two passwords do not match.',
    password: {
      too_short: 'The password must be at least 12 characters long.',
      too_long: 'The password must be at most 256 characters long.',
      repeated: 'The password must not repeat one character.',
      contains_email: 'The password must not contain the name part of your e-mail address.',
    },
  },
};

const tr: ShellMessages = {
  languageSwitch: 'English',
  brand: 'Gateway paneli',
  nav: {
    home: 'Panel',
    security: 'Güvenlik',
    apiKeys: 'API anahtarları',
    settlements: 'Hakedişler',
    customers: 'Müşteriler',
    disputes: 'İtirazlar',
    disputeRatios: 'İtiraz oranları',
    logout: 'Çıkış yap',
    payments: 'Ödemeler',
    exports: 'Dışa aktarım',
    money: 'Bakiye ve hakedişler',
    balance: 'Bakiye',
    wallets: 'Cüzdanlar',
    developers: 'Geliştiriciler',
    webhooks: 'Webhook’lar',
    events: 'Olaylar',
    settings: 'Ayarlar',
    team: 'Ekip',
    branding: 'Marka',
    autoRefunds: 'Otomatik iade kuralları',
    menu: 'Panel menüsü',
    skipToContent: 'İçeriğe geç',
    viewing: '{environment} verileri',
    testMode:
      'Test modu: sandbox verilerini görüyorsunuz. Buradaki hiçbir işlem gerçek para taşımaz ve sandbox bakiyeleri hiçbir zaman gerçek bir cüzdana ulaşmaz.',
    signedInAs: 'Oturum açan',
  },
  common: {
    email: 'E-posta adresi',
    password: 'Şifre',
    newPassword: 'Yeni şifre',
    passwordConfirmation: 'Yeni şifreyi tekrarlayın',
    passwordHint: 'En az 12 karakter. Uzun bir parola cümlesi en iyisidir.',
    name: 'Adınız',
    optional: 'isteğe bağlı',
    backToLogin: 'Girişe dön',
    noscript: 'Bu sayfa JavaScript gerektirir.',
  },
  errors: {
    csrf: 'Formun süresi doldu ya da bu siteden gelmedi. Sayfayı yenileyip tekrar deneyin.',
    rateLimited: 'Ağınızdan çok fazla deneme geldi. Birkaç dakika bekleyip tekrar deneyin.',
    generic: 'Bir sorun oluştu. Lütfen tekrar deneyin. Referans:',
    notFound: 'Bu sayfa yok.',
    cardNumber:
      'Formda kart numarasına benzeyen bir değer var. Kart numarası buraya hiçbir zaman girilmez: geri dönün, onu silip formu tekrar gönderin.',
    passwordMismatch: 'İki şifre aynı değil.',
    password: {
      too_short: 'Şifre en az 12 karakter olmalıdır.',
      too_long: 'Şifre en fazla 256 karakter olabilir.',
      repeated: 'Şifre tek bir karakterin tekrarı olmamalıdır.',
      contains_email: 'Şifre e-posta adresinizin kullanıcı adı kısmını içermemelidir.',
    },
  },
};

export const SHELL_MESSAGES: Record<Locale, ShellMessages> = { en, tr };
