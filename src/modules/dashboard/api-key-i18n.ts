import type { Locale } from '../../web/i18n.js';

/** The API key pages. */
export interface ApiKeyMessages {
  apiKeys: {
    title: string;
    intro: string;
    readOnly: string;
    none: string;
    prefix: string;
    name: string;
    scopes: string;
    allowedIps: string;
    anyIp: string;
    lastUsed: string;
    never: string;
    expires: string;
    noExpiry: string;
    created: string;
    revoked: string;
    active: string;
    revoke: string;
    revokedNotice: string;
    details: string;
    activity: string;
    activityIntro: string;
    noActivity: string;
    older: string;
    columns: {
      time: string;
      method: string;
      route: string;
      resource: string;
      status: string;
      requestId: string;
      ip: string;
    };
    create: string;
    scopeLabels: { read: string; write: string; payouts: string; all: string };
    allowedIpsHint: string;
    expiresHint: string;
    submit: string;
    createdTitle: string;
    secretOnce: string;
    back: string;
    errors: {
      no_scope: string;
      invalid_cidr: string;
      past_expiry: string;
      invalid_date: string;
      too_many_ips: string;
      not_permitted: string;
    };
  };
}

const en: ApiKeyMessages = {
  apiKeys: {
    title: 'API keys',
    intro:
      'Keys of the {environment} environment. A key is shown once, when it is created; only its hash is kept.',
    readOnly: 'Your role can see the keys but not create or revoke them.',
    none: 'No API keys yet.',
    prefix: 'Key',
    name: 'Name',
    scopes: 'Scopes',
    allowedIps: 'Allowed IPs',
    anyIp: 'Any',
    lastUsed: 'Last used',
    never: 'Never',
    expires: 'Expires',
    noExpiry: 'Never',
    created: 'Created',
    revoked: 'Revoked',
    active: 'Active',
    revoke: 'Revoke',
    revokedNotice: 'The key is revoked: its next request is refused.',
    details: 'Details and activity',
    activity: 'Requests of the last 30 days',
    activityIntro:
      'Every request this key made, newest first, kept 30 days (also after revocation). Bodies and secrets are never kept.',
    noActivity: 'No requests in the last 30 days.',
    older: 'Older requests',
    columns: {
      time: 'Time',
      method: 'Method',
      route: 'Route',
      resource: 'Object',
      status: 'Status',
      requestId: 'Request id',
      ip: 'Address',
    },
    create: 'Create a key',
    scopeLabels: { read: 'read', write: 'write', payouts: 'payouts', all: 'all' },
    allowedIpsHint: 'One address or CIDR range per line, such as 203.0.113.0/24. Empty: any address.',
    expiresHint: 'The key stops working at 00:00 UTC on this day.',
    submit: 'Create key',
    createdTitle: 'Your new API key',
    secretOnce: 'Copy this key now and keep it safe: it will not be shown again.',
    back: 'Back to API keys',
    errors: {
      no_scope: 'Choose at least one scope.',
      invalid_cidr: 'Not an IPv4 or IPv6 address or CIDR range: {value}',
      past_expiry: 'The expiry date must be in the future.',
      invalid_date: 'The expiry date is not a valid date.',
      too_many_ips: 'At most {max} allowed IP entries.',
      not_permitted: 'Your role may not create or revoke API keys.',
    },
  },
};

const tr: ApiKeyMessages = {
  apiKeys: {
    title: 'API anahtarları',
    intro:
      '{environment} ortamının anahtarları. Bir anahtar yalnızca oluşturulduğunda bir kez gösterilir; yalnızca özeti saklanır.',
    readOnly: 'Rolünüz anahtarları görebilir, ancak oluşturamaz veya iptal edemez.',
    none: 'Henüz API anahtarı yok.',
    prefix: 'Anahtar',
    name: 'Ad',
    scopes: 'Yetkiler',
    allowedIps: 'İzin verilen IP adresleri',
    anyIp: 'Tümü',
    lastUsed: 'Son kullanım',
    never: 'Hiç',
    expires: 'Geçerlilik sonu',
    noExpiry: 'Süresiz',
    created: 'Oluşturulma',
    revoked: 'İptal edildi',
    active: 'Etkin',
    revoke: 'İptal et',
    revokedNotice: 'Anahtar iptal edildi: sonraki isteği reddedilecek.',
    details: 'Ayrıntılar ve etkinlik',
    activity: 'Son 30 günün istekleri',
    activityIntro:
      'Bu anahtarın yaptığı her istek, en yenisi önce, 30 gün saklanır (iptalden sonra da). İstek gövdeleri ve gizli anahtarlar asla saklanmaz.',
    noActivity: 'Son 30 günde istek yok.',
    older: 'Daha eski istekler',
    columns: {
      time: 'Zaman',
      method: 'Yöntem',
      route: 'Yol',
      resource: 'Nesne',
      status: 'Durum',
      requestId: 'İstek kimliği',
      ip: 'Adres',
    },
    create: 'Anahtar oluştur',
    scopeLabels: { read: 'okuma', write: 'yazma', payouts: 'ödemeler', all: 'tümü' },
    allowedIpsHint: 'Her satıra bir adres veya CIDR aralığı, örneğin 203.0.113.0/24. Boş: her adres.',
    expiresHint: 'Anahtar bu günün 00:00 (UTC) saatinde çalışmayı bırakır.',
    submit: 'Anahtarı oluştur',
    createdTitle: 'Yeni API anahtarınız',
    secretOnce: 'Bu anahtarı şimdi kopyalayın ve güvenle saklayın: bir daha gösterilmeyecek.',
    back: 'API anahtarlarına dön',
    errors: {
      no_scope: 'En az bir yetki seçin.',
      invalid_cidr: 'Geçerli bir IPv4 veya IPv6 adresi ya da CIDR aralığı değil: {value}',
      past_expiry: 'Geçerlilik sonu ileri bir tarih olmalıdır.',
      invalid_date: 'Geçerlilik sonu geçerli bir tarih değil.',
      too_many_ips: 'En fazla {max} IP girişi olabilir.',
      not_permitted: 'Rolünüz API anahtarı oluşturamaz veya iptal edemez.',
    },
  },
};

export const API_KEY_MESSAGES: Record<Locale, ApiKeyMessages> = { en, tr };
