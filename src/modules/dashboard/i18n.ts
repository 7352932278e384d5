import type { KycStatus, UserRole } from '../../db/schema.js';
import { fillMessage, type Locale } from '../../web/i18n.js';

export type PasswordProblemKey = 'too_short' | 'too_long' | 'repeated' | 'contains_email';

export interface DashboardMessages {
  languageSwitch: string;
  brand: string;
  nav: {
    home: string;
    security: string;
    apiKeys: string;
    settlements: string;
    customers: string;
    logout: string;
    /** The navigation's groups and the links added with the application shell (issue 15 item 0). */
    payments: string;
    exports: string;
    money: string;
    /** The balance cards, the next batch and the payouts (issue 15 item 2). */
    balance: string;
    wallets: string;
    developers: string;
    webhooks: string;
    events: string;
    settings: string;
    team: string;
    branding: string;
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
  login: {
    title: string;
    submit: string;
    forgot: string;
    invalid: string;
    signedOut: string;
    /** `{seconds}`: the wait before the next attempt is checked. */
    throttled: string;
    throttledOne: string;
    expired: string;
    passwordChanged: string;
  };
  mfa: { title: string; intro: string; code: string; submit: string; invalid: string };
  activation: {
    title: string;
    intro: string;
    submit: string;
    doneTitle: string;
    keyHeading: string;
    keyOnce: string;
    kycNote: string;
    continue: string;
  };
  invitation: { title: string; intro: string; submit: string; doneTitle: string; doneBody: string };
  link: { usedTitle: string; usedBody: string; invalidTitle: string; invalidBody: string };
  forgot: { title: string; intro: string; submit: string; sent: string };
  reset: { title: string; submit: string; done: string; invalid: string };
  home: {
    title: string;
    organization: string;
    kycStatus: string;
    kyc: Record<KycStatus, string>;
    environment: string;
    environments: { sandbox: string; live: string };
    switchTo: { sandbox: string; live: string };
    apiBaseUrl: string;
    yourRole: string;
    securityLink: string;
    team: string;
    status: { invited: string; active: string; disabled: string };
    invite: string;
    inviteName: string;
    inviteSubmit: string;
    role: string;
    invited: string;
    inviteErrors: { email_taken: string; not_permitted: string; invalid_email: string };
  };
  roles: Record<UserRole, string>;
  security: {
    title: string;
    twoFactor: string;
    on: string;
    off: string;
    enroll: string;
    scan: string;
    secretLabel: string;
    code: string;
    verify: string;
    recoveryHeading: string;
    recoveryNote: string;
    done: string;
    disableIntro: string;
    disable: string;
    recoveryLeft: string;
    changePassword: string;
    currentPassword: string;
    change: string;
    changed: string;
    wrongCurrent: string;
    invalidCode: string;
  };
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

const en: DashboardMessages = {
  languageSwitch: 'Türkçe',
  brand: 'Gateway dashboard',
  nav: {
    home: 'Dashboard',
    security: 'Security',
    apiKeys: 'API keys',
    settlements: 'Settlements',
    customers: 'Customers',
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
  login: {
    title: 'Sign in',
    submit: 'Sign in',
    forgot: 'Forgot your password?',
    invalid:
      'The e-mail address or the password is incorrect. After 5 failed attempts, each further attempt has to wait longer.',
    signedOut: 'You are signed out.',
    throttled: 'Too many failed attempts. Wait {seconds} seconds, then try again.',
    throttledOne: 'Too many failed attempts. Wait a second, then try again.',
    expired: 'Your sign-in took too long. Please start again.',
    passwordChanged: 'Your password is set. Sign in with it.',
  },
  mfa: {
    title: 'Two-factor authentication',
    intro: 'Enter the 6-digit code of your authenticator app, or one of your recovery codes.',
    code: 'Code',
    submit: 'Verify',
    invalid: 'This code is not valid or was already used.',
  },
  activation: {
    title: 'Activate your account',
    intro: 'Choose the dashboard password of {email} for {organization}.',
    submit: 'Set password and activate',
    doneTitle: 'Your account is active',
    keyHeading: 'Your live API key',
    keyOnce:
      'This is the only time this key is shown. Copy it now into your secret store: we keep only a hash and cannot show it again.',
    kycNote: 'Live traffic stays off until your KYC review is approved.',
    continue: 'Continue to sign in',
  },
  invitation: {
    title: 'Join {organization}',
    intro: 'You are invited to the {organization} dashboard as {role} ({email}). Choose your password.',
    submit: 'Accept the invitation',
    doneTitle: 'Welcome aboard',
    doneBody: 'Your account is ready. Sign in with your e-mail address and password.',
  },
  link: {
    usedTitle: 'This link was already used',
    usedBody:
      'Each link works once. Sign in with your password, or ask for a password reset if you do not know it.',
    invalidTitle: 'This link is not valid',
    invalidBody:
      'The link is unknown or has expired. Activation and invitation links are valid for 72 hours, password reset links for 1 hour. Ask for a new one.',
  },
  forgot: {
    title: 'Forgot your password?',
    intro:
      'Enter the e-mail address of your account. If it has an account, we send it a link to choose a new password; the link is valid for 1 hour.',
    submit: 'Send the link',
    sent: 'If an account exists for this address, a link is on its way. It is valid for 1 hour.',
  },
  reset: {
    title: 'Choose a new password',
    submit: 'Set the new password',
    done: 'Your password is set and every session of your account has ended. Sign in with the new password.',
    invalid: 'This link is invalid, expired or already used. Ask for a new one.',
  },
  home: {
    title: 'Dashboard',
    organization: 'Organization',
    kycStatus: 'KYC status',
    kyc: { REVIEWING: 'Under review: live traffic is off', APPROVED: 'Approved' },
    environment: 'Environment',
    environments: { sandbox: 'Sandbox', live: 'Live' },
    switchTo: { sandbox: 'Switch to sandbox', live: 'Switch to live' },
    apiBaseUrl: 'API base URL',
    yourRole: 'Your role',
    securityLink: 'Account security: password and two-factor authentication',
    team: 'Team',
    status: { invited: 'Invitation pending', active: 'Active', disabled: 'Disabled' },
    invite: 'Invite a team member',
    inviteName: 'Name',
    inviteSubmit: 'Send the invitation',
    role: 'Role',
    invited: 'Invitation sent.',
    inviteErrors: {
      email_taken: 'This address already has an account and cannot be invited.',
      not_permitted: 'Your role does not allow inviting people.',
      invalid_email: 'Enter a valid e-mail address.',
    },
  },
  roles: { owner: 'Owner', admin: 'Admin', developer: 'Developer', viewer: 'Viewer' },
  security: {
    title: 'Account security',
    twoFactor: 'Two-factor authentication',
    on: 'On: signing in asks for a code of your authenticator app.',
    off: 'Off: signing in asks for your password only.',
    enroll: 'Set up two-factor authentication',
    scan: 'Scan this QR code with your authenticator app, then enter the 6-digit code it shows.',
    secretLabel: 'Or type this key',
    code: 'Code',
    verify: 'Turn on',
    recoveryHeading: 'Your recovery codes',
    recoveryNote:
      'Keep these codes somewhere safe. Each works once, instead of a code of the app. They are shown only now.',
    done: 'Done',
    disableIntro: 'To turn it off, enter a current code of your app or a recovery code.',
    disable: 'Turn off',
    recoveryLeft: 'Unused recovery codes: {count}',
    changePassword: 'Change your password',
    currentPassword: 'Current password',
    change: 'Change password',
    changed: 'Your password is changed. Your other sessions have ended.',
    wrongCurrent: 'This is not your current password.',
    invalidCode: 'This code is not valid or was already used.',
  },
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

const tr: DashboardMessages = {
  languageSwitch: 'English',
  brand: 'Gateway paneli',
  nav: {
    home: 'Panel',
    security: 'Güvenlik',
    apiKeys: 'API anahtarları',
    settlements: 'Hakedişler',
    customers: 'Müşteriler',
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
  login: {
    title: 'Giriş yap',
    submit: 'Giriş yap',
    forgot: 'Şifrenizi mi unuttunuz?',
    invalid:
      'E-posta adresi ya da şifre hatalı. 5 başarısız denemeden sonra her yeni deneme için daha uzun beklemeniz gerekir.',
    signedOut: 'Çıkış yaptınız.',
    throttled: 'Çok fazla başarısız deneme. {seconds} saniye bekleyip tekrar deneyin.',
    throttledOne: 'Çok fazla başarısız deneme. 1 saniye bekleyip tekrar deneyin.',
    expired: 'Girişiniz çok uzun sürdü. Lütfen baştan başlayın.',
    passwordChanged: 'Şifreniz belirlendi. Yeni şifrenizle giriş yapın.',
  },
  mfa: {
    title: 'İki adımlı doğrulama',
    intro: 'Doğrulama uygulamanızdaki 6 haneli kodu ya da kurtarma kodlarınızdan birini girin.',
    code: 'Kod',
    submit: 'Doğrula',
    invalid: 'Bu kod geçersiz ya da daha önce kullanılmış.',
  },
  activation: {
    title: 'Hesabınızı etkinleştirin',
    intro: '{organization} için {email} hesabının panel şifresini belirleyin.',
    submit: 'Şifreyi belirle ve etkinleştir',
    doneTitle: 'Hesabınız etkin',
    keyHeading: 'Canlı (live) API anahtarınız',
    keyOnce:
      'Bu anahtar yalnızca bu kez gösterilir. Şimdi kopyalayıp gizli bilgi deponuza kaydedin: biz yalnızca özetini saklarız ve tekrar gösteremeyiz.',
    kycNote: 'Canlı işlemler, KYC incelemeniz onaylanana kadar kapalıdır.',
    continue: 'Girişe devam et',
  },
  invitation: {
    title: '{organization} ekibine katılın',
    intro: '{organization} paneline {role} rolüyle davet edildiniz ({email}). Şifrenizi belirleyin.',
    submit: 'Daveti kabul et',
    doneTitle: 'Hoş geldiniz',
    doneBody: 'Hesabınız hazır. E-posta adresiniz ve şifrenizle giriş yapın.',
  },
  link: {
    usedTitle: 'Bu bağlantı zaten kullanıldı',
    usedBody:
      'Her bağlantı bir kez çalışır. Şifrenizle giriş yapın ya da şifrenizi bilmiyorsanız sıfırlama isteyin.',
    invalidTitle: 'Bu bağlantı geçerli değil',
    invalidBody:
      'Bağlantı bilinmiyor ya da süresi dolmuş. Etkinleştirme ve davet bağlantıları 72 saat, şifre sıfırlama bağlantıları 1 saat geçerlidir. Yenisini isteyin.',
  },
  forgot: {
    title: 'Şifrenizi mi unuttunuz?',
    intro:
      'Hesabınızın e-posta adresini girin. Bu adrese ait bir hesap varsa, yeni şifre belirlemek için 1 saat geçerli bir bağlantı göndeririz.',
    submit: 'Bağlantıyı gönder',
    sent: 'Bu adrese ait bir hesap varsa bağlantı yolda. Bağlantı 1 saat geçerlidir.',
  },
  reset: {
    title: 'Yeni şifre belirleyin',
    submit: 'Yeni şifreyi kaydet',
    done: 'Şifreniz belirlendi ve hesabınızın tüm oturumları kapatıldı. Yeni şifrenizle giriş yapın.',
    invalid: 'Bu bağlantı geçersiz, süresi dolmuş ya da kullanılmış. Yenisini isteyin.',
  },
  home: {
    title: 'Panel',
    organization: 'Kuruluş',
    kycStatus: 'KYC durumu',
    kyc: { REVIEWING: 'İncelemede: canlı işlemler kapalı', APPROVED: 'Onaylandı' },
    environment: 'Ortam',
    environments: { sandbox: 'Sandbox (test)', live: 'Canlı' },
    switchTo: { sandbox: 'Sandbox ortamına geç', live: 'Canlı ortama geç' },
    apiBaseUrl: 'API adresi',
    yourRole: 'Rolünüz',
    securityLink: 'Hesap güvenliği: şifre ve iki adımlı doğrulama',
    team: 'Ekip',
    status: { invited: 'Davet bekliyor', active: 'Etkin', disabled: 'Devre dışı' },
    invite: 'Ekip üyesi davet edin',
    inviteName: 'Ad soyad',
    inviteSubmit: 'Daveti gönder',
    role: 'Rol',
    invited: 'Davet gönderildi.',
    inviteErrors: {
      email_taken: 'Bu adresin zaten bir hesabı var; davet edilemez.',
      not_permitted: 'Rolünüz davet göndermeye izin vermiyor.',
      invalid_email: 'Geçerli bir e-posta adresi girin.',
    },
  },
  roles: { owner: 'Sahip', admin: 'Yönetici', developer: 'Geliştirici', viewer: 'İzleyici' },
  security: {
    title: 'Hesap güvenliği',
    twoFactor: 'İki adımlı doğrulama',
    on: 'Açık: giriş yaparken doğrulama uygulamanızdan bir kod istenir.',
    off: 'Kapalı: giriş yaparken yalnızca şifreniz istenir.',
    enroll: 'İki adımlı doğrulamayı kur',
    scan: 'Bu QR kodunu doğrulama uygulamanızla tarayın, ardından gösterdiği 6 haneli kodu girin.',
    secretLabel: 'Ya da bu anahtarı yazın',
    code: 'Kod',
    verify: 'Aç',
    recoveryHeading: 'Kurtarma kodlarınız',
    recoveryNote:
      'Bu kodları güvenli bir yerde saklayın. Her biri uygulama kodu yerine bir kez çalışır. Yalnızca şimdi gösterilirler.',
    done: 'Tamam',
    disableIntro: 'Kapatmak için uygulamanızdaki güncel kodu ya da bir kurtarma kodunu girin.',
    disable: 'Kapat',
    recoveryLeft: 'Kullanılmamış kurtarma kodu: {count}',
    changePassword: 'Şifrenizi değiştirin',
    currentPassword: 'Mevcut şifre',
    change: 'Şifreyi değiştir',
    changed: 'Şifreniz değiştirildi. Diğer oturumlarınız kapatıldı.',
    wrongCurrent: 'Bu, mevcut şifreniz değil.',
    invalidCode: 'Bu kod geçersiz ya da daha önce kullanılmış.',
  },
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

export const DASHBOARD_MESSAGES: Record<Locale, DashboardMessages> = { en, tr };

/**
 * Fills `{name}` placeholders and picks the plural form of a `{count, plural, one {…} other {…}}`
 * (`fillMessage`); the result is escaped by the template like any other text.
 */
export function format(template: string, values: Record<string, string | number>): string {
  return fillMessage(template, values);
}

/** The message key of a `passwordProblem` answer. */
export function passwordProblemKey(problem: string): PasswordProblemKey {
  if (problem.startsWith('must be at least')) return 'too_short';
  if (problem.startsWith('must be at most')) return 'too_long';
  if (problem.includes('repeat')) return 'repeated';
  return 'contains_email';
}
