import type { Locale } from '../../web/i18n.js';
import type { UrlProblem } from '../webhooks/url-guard.js';

/** The dashboard's webhook endpoint pages, Turkish and English. */
export interface WebhookMessages {
  nav: string;
  title: string;
  intro: string;
  readOnly: string;
  none: string;
  url: string;
  description: string;
  events: string;
  eventLabels: Record<string, string>;
  status: string;
  statuses: { enabled: string; disabled: string; failing: string };
  created: string;
  graceUntil: string;
  details: string;
  create: string;
  urlHint: string;
  submit: string;
  createdTitle: string;
  rotatedTitle: string;
  secretOnce: string;
  /** The rotated secret's warning: not to verify with it before the switch. */
  secretOnceRotated: string;
  secretHeading: string;
  rotationExplained: string;
  rotationSteps: string[];
  rotationNoGrace: string;
  rotationBoth: string;
  signing: string;
  signingWith: { previous: string; current: string };
  pausedUntil: string;
  switchTitle: string;
  switchIntro: string;
  pause: string;
  pauseChoices: Record<string, string>;
  switchSubmit: string;
  resumeTitle: string;
  resumeIntro: string;
  resumeSubmit: string;
  back: string;
  backToList: string;
  disable: string;
  enable: string;
  remove: string;
  rotate: string;
  rotateIntro: string;
  gracePeriod: string;
  graceChoices: Record<string, string>;
  rotateSubmit: string;
  confirmTitle: string;
  confirmBody: string;
  confirmSubmit: string;
  cancel: string;
  attempts: string;
  attemptsIntro: string;
  noAttempts: string;
  attemptFields: {
    time: string;
    eventType: string;
    eventId: string;
    httpStatus: string;
    latency: string;
    error: string;
    response: string;
    delivery: string;
  };
  noAnswer: string;
  ok: string;
  deliveryStatuses: { pending: string; succeeded: string; failed: string };
  retry: string;
  edit: string;
  editIntro: string;
  editSubmit: string;
  notices: {
    deleted: string;
    disabled: string;
    enabled: string;
    retried: string;
    updated: string;
    unchanged: string;
    switched: string;
    resumed: string;
  };
  errors: {
    no_events: string;
    limit_reached: string;
    invalid_url: string;
    https_required: string;
    credentials: string;
    private_target: string;
    unresolvable: string;
    too_long: string;
    url_too_long: string;
    description_too_long: string;
    not_permitted: string;
    no_rotation: string;
  };
}

export type WebhookFormError = keyof WebhookMessages['errors'];

const en: WebhookMessages = {
  nav: 'Webhooks',
  title: 'Webhook endpoints',
  intro:
    'Endpoints of the {environment} environment: they receive signed POSTs about its events. A signing secret is shown once, when it is created or rotated.',
  readOnly: 'Your role can see the endpoints but not change them.',
  none: 'No webhook endpoints yet.',
  url: 'URL',
  description: 'Description',
  events: 'Events',
  eventLabels: {
    'charge.succeeded': 'charge.succeeded: a charge succeeded',
    'charge.failed': 'charge.failed: a charge failed',
    'charge.expired': 'charge.expired: a charge expired unpaid',
    'charge.refunded': 'charge.refunded: a charge was refunded',
    'payout.completed': 'payout.completed: a payout completed',
    '*': '* : every event, including kinds added later',
  },
  status: 'Status',
  statuses: {
    enabled: 'Enabled',
    disabled: 'Disabled',
    failing: 'Disabled: every delivery failed for 5 days',
  },
  created: 'Created',
  graceUntil: 'Previous secret signs until',
  details: 'Details and deliveries',
  create: 'Add an endpoint',
  urlHint:
    'Live endpoints must use https. Private, loopback and link-local addresses are refused; redirects are not followed.',
  submit: 'Add endpoint',
  createdTitle: 'Your new webhook endpoint',
  rotatedTitle: 'The new signing secret',
  secretOnce:
    'Copy this signing secret now and keep it like a password: it will not be shown again. Verify every delivery with it (HMAC-SHA256 of "<timestamp>.<raw body>").',
  secretOnceRotated:
    'Copy this new signing secret now and keep it like a password: it will not be shown again. Do not verify with it yet: Service-Signature is made with your current secret until you switch to this one.',
  secretHeading: 'Signing secret',
  rotationExplained:
    'Until you switch, and at the latest until {until}, Service-Signature is made with your current secret, as before: keep verifying it with that secret. Each delivery also carries Service-Signature-Next, made with this new one. From the switch on, Service-Signature is made with this new secret only.',
  rotationSteps: [
    'Store this new secret where your receiver’s next deployment will read it, and keep verifying Service-Signature with your current secret.',
    'When you are ready to deploy, choose "Switch to the new secret" on the endpoint’s page: Service-Signature is then made with the new secret, and deliveries wait, queued, for the pause you chose (none is lost or fails).',
    'Deploy your receiver with the new secret.',
    'Choose "Resume deliveries": the deliveries that waited are sent, signed with the new secret.',
  ],
  rotationNoGrace:
    'Without a grace period the previous secret stopped signing at once: from now on Service-Signature is made with this new secret.',
  rotationBoth:
    'A receiver that holds both secrets and also checks Service-Signature-Next verifies every delivery at every step: it can switch without a pause.',
  signing: 'Service-Signature is made with',
  signingWith: {
    previous: 'the previous secret, until you switch',
    current: 'the newest secret',
  },
  pausedUntil: 'Deliveries wait until',
  switchTitle: 'Switch to the new secret',
  switchIntro:
    'Service-Signature is still made with the previous secret, at the latest until {until}. Switch when you are ready to deploy your receiver with the new secret: from then on Service-Signature is made with the new secret, and deliveries wait, queued, for the pause you choose. Deploy, then resume the deliveries.',
  pause: 'Pause deliveries for',
  pauseChoices: {
    '300': '5 minutes',
    '900': '15 minutes (recommended)',
    '1800': '30 minutes',
    '3600': '1 hour',
    '0': 'No pause (a receiver that holds both secrets)',
  },
  switchSubmit: 'Switch to the new secret',
  resumeTitle: 'Resume deliveries',
  resumeIntro:
    'Deploy your receiver with the new secret first: the deliveries that waited are then sent, signed with it. They are sent anyway when the pause ends.',
  resumeSubmit: 'Resume deliveries',
  back: 'Back to the endpoint',
  backToList: 'Back to webhook endpoints',
  disable: 'Disable',
  enable: 'Enable',
  remove: 'Delete…',
  rotate: 'Rotate the signing secret',
  rotateIntro:
    'A new secret is made and shown once. Nothing changes for your receiver until you switch to it on this page: until then Service-Signature is made with the current secret, and the new one signs Service-Signature-Next. The grace period is the latest the switch happens by itself.',
  gracePeriod: 'Grace period',
  graceChoices: {
    '0': 'None: the new secret signs at once, without a switch',
    '3600': '1 hour',
    '86400': '1 day (recommended)',
    '259200': '3 days',
    '604800': '7 days',
  },
  rotateSubmit: 'Rotate secret',
  confirmTitle: 'Delete this webhook endpoint?',
  confirmBody:
    'It receives nothing more, and deliveries waiting for it are abandoned. This cannot be undone; its secret is gone for good.',
  confirmSubmit: 'Delete the endpoint',
  cancel: 'Cancel',
  attempts: 'Recent delivery attempts',
  attemptsIntro: 'The last {count} attempts, newest first. Attempts are kept 30 days.',
  noAttempts: 'No delivery attempts yet.',
  attemptFields: {
    time: 'Time',
    eventType: 'Event type',
    eventId: 'Event id',
    httpStatus: 'HTTP status',
    latency: 'Latency',
    error: 'Error',
    response: 'Response excerpt',
    delivery: 'Delivery',
  },
  noAnswer: 'No answer',
  ok: 'None',
  deliveryStatuses: {
    pending: 'Pending: retried automatically',
    succeeded: 'Succeeded',
    failed: 'Failed: no retries left',
  },
  retry: 'Retry',
  edit: 'Edit the endpoint',
  editIntro:
    'Change where events are sent, which kinds and the description. The signing secret stays the same. Live endpoints must use https.',
  editSubmit: 'Save changes',
  notices: {
    deleted: 'The endpoint is deleted.',
    disabled: 'The endpoint is disabled: deliveries wait until it is enabled again.',
    enabled: 'The endpoint is enabled.',
    retried: 'The delivery is due again now, with the same event id.',
    updated: 'The endpoint is updated.',
    unchanged: 'Nothing was changed.',
    switched:
      'Service-Signature is now made with the new secret, and deliveries wait: deploy your receiver with the new secret, then resume them.',
    resumed: 'Deliveries are resumed, signed with the new secret.',
  },
  errors: {
    no_events: 'Choose at least one event.',
    limit_reached:
      'This environment already has the most webhook endpoints an organization may have (16): delete one first.',
    invalid_url: 'The URL must be an absolute http or https URL.',
    https_required: 'Live endpoints must use https.',
    credentials: 'The URL must not carry a user name or password.',
    private_target:
      'The URL must not be or resolve to a private, loopback, link-local, unique-local, multicast or CGNAT address.',
    unresolvable: 'The host name of the URL does not resolve.',
    too_long: 'The URL (2048) or the description (500 characters) is too long.',
    url_too_long: 'The URL is too long (at most 2048 characters).',
    description_too_long: 'The description is too long (at most 500 characters).',
    not_permitted: 'Your role may not change webhook endpoints.',
    no_rotation: 'There is no new secret waiting to sign: rotate the secret first.',
  },
};

const tr: WebhookMessages = {
  nav: 'Webhook’lar',
  title: 'Webhook uç noktaları',
  intro:
    '{environment} ortamının uç noktaları: bu ortamın olayları için imzalı POST istekleri alırlar. İmza anahtarı yalnızca oluşturulduğunda ya da yenilendiğinde bir kez gösterilir.',
  readOnly: 'Rolünüz uç noktaları görebilir, ancak değiştiremez.',
  none: 'Henüz webhook uç noktası yok.',
  url: 'URL',
  description: 'Açıklama',
  events: 'Olaylar',
  eventLabels: {
    'charge.succeeded': 'charge.succeeded: ödeme başarılı',
    'charge.failed': 'charge.failed: ödeme başarısız',
    'charge.expired': 'charge.expired: ödeme yapılmadan süresi doldu',
    'charge.refunded': 'charge.refunded: ödeme iade edildi',
    'payout.completed': 'payout.completed: hakediş ödemesi tamamlandı',
    '*': '* : sonradan eklenecek türler dahil tüm olaylar',
  },
  status: 'Durum',
  statuses: {
    enabled: 'Etkin',
    disabled: 'Devre dışı',
    failing: 'Devre dışı: 5 gün boyunca tüm gönderimler başarısız oldu',
  },
  created: 'Oluşturulma',
  graceUntil: 'Önceki anahtarın imzalayacağı son an',
  details: 'Ayrıntılar ve gönderimler',
  create: 'Uç nokta ekleyin',
  urlHint:
    'Canlı uç noktalar https kullanmalıdır. Özel, loopback ve link-local adresler reddedilir; yönlendirmeler izlenmez.',
  submit: 'Uç noktayı ekle',
  createdTitle: 'Yeni webhook uç noktanız',
  rotatedTitle: 'Yeni imza anahtarı',
  secretOnce:
    'Bu imza anahtarını şimdi kopyalayın ve bir şifre gibi saklayın: bir daha gösterilmeyecek. Her gönderimi bununla doğrulayın ("<timestamp>.<ham gövde>" üzerinde HMAC-SHA256).',
  secretOnceRotated:
    'Bu yeni imza anahtarını şimdi kopyalayın ve bir şifre gibi saklayın: bir daha gösterilmeyecek. Henüz bununla doğrulamayın: bu anahtara geçene kadar Service-Signature mevcut anahtarınızla yapılır.',
  secretHeading: 'İmza anahtarı',
  rotationExplained:
    'Geçiş yapana kadar, en geç {until} tarihine kadar, Service-Signature eskisi gibi mevcut anahtarınızla yapılır: onu bu anahtarla doğrulamaya devam edin. Her gönderim ayrıca bu yeni anahtarla yapılan Service-Signature-Next başlığını taşır. Geçişten sonra Service-Signature yalnızca bu yeni anahtarla yapılır.',
  rotationSteps: [
    'Bu yeni anahtarı alıcınızın bir sonraki dağıtımının okuyacağı yere kaydedin ve Service-Signature’ı mevcut anahtarınızla doğrulamaya devam edin.',
    'Dağıtıma hazır olduğunuzda uç noktanın sayfasında "Yeni anahtara geç"i seçin: Service-Signature bundan sonra yeni anahtarla yapılır ve gönderimler seçtiğiniz duraklatma süresince sırada bekler (hiçbiri kaybolmaz ya da başarısız olmaz).',
    'Alıcınızı yeni anahtarla dağıtın.',
    '"Gönderimleri sürdür"ü seçin: bekleyen gönderimler yeni anahtarla imzalanarak gönderilir.',
  ],
  rotationNoGrace:
    'Geçiş süresi olmadığı için önceki anahtar hemen imzalamayı bıraktı: bundan sonra Service-Signature bu yeni anahtarla yapılır.',
  rotationBoth:
    'İki anahtarı da tutan ve Service-Signature-Next’i de denetleyen bir alıcı her adımda her gönderimi doğrular: duraklatmadan geçiş yapabilir.',
  signing: 'Service-Signature’ı yapan anahtar',
  signingWith: {
    previous: 'önceki anahtar, siz geçiş yapana kadar',
    current: 'en yeni anahtar',
  },
  pausedUntil: 'Gönderimlerin bekleyeceği son an',
  switchTitle: 'Yeni anahtara geçin',
  switchIntro:
    'Service-Signature hâlâ önceki anahtarla yapılıyor, en geç {until} tarihine kadar. Alıcınızı yeni anahtarla dağıtmaya hazır olduğunuzda geçiş yapın: bundan sonra Service-Signature yeni anahtarla yapılır ve gönderimler seçtiğiniz süre boyunca sırada bekler. Dağıtın, ardından gönderimleri sürdürün.',
  pause: 'Gönderimleri duraklatma süresi',
  pauseChoices: {
    '300': '5 dakika',
    '900': '15 dakika (önerilen)',
    '1800': '30 dakika',
    '3600': '1 saat',
    '0': 'Duraklatma yok (iki anahtarı da tutan bir alıcı için)',
  },
  switchSubmit: 'Yeni anahtara geç',
  resumeTitle: 'Gönderimleri sürdürün',
  resumeIntro:
    'Önce alıcınızı yeni anahtarla dağıtın: bekleyen gönderimler ardından bu anahtarla imzalanarak gönderilir. Duraklatma süresi bitince de gönderilirler.',
  resumeSubmit: 'Gönderimleri sürdür',
  back: 'Uç noktaya dön',
  backToList: 'Webhook uç noktalarına dön',
  disable: 'Devre dışı bırak',
  enable: 'Etkinleştir',
  remove: 'Sil…',
  rotate: 'İmza anahtarını yenileyin',
  rotateIntro:
    'Yeni bir anahtar oluşturulur ve bir kez gösterilir. Bu sayfada ona geçene kadar alıcınız için hiçbir şey değişmez: o zamana kadar Service-Signature mevcut anahtarla yapılır, yeni anahtar ise Service-Signature-Next’i imzalar. Geçiş süresi, geçişin kendiliğinden yapılacağı en geç andır.',
  gracePeriod: 'Geçiş süresi',
  graceChoices: {
    '0': 'Yok: yeni anahtar geçiş adımı olmadan hemen imzalar',
    '3600': '1 saat',
    '86400': '1 gün (önerilen)',
    '259200': '3 gün',
    '604800': '7 gün',
  },
  rotateSubmit: 'Anahtarı yenile',
  confirmTitle: 'Bu webhook uç noktası silinsin mi?',
  confirmBody:
    'Artık hiçbir şey almaz ve onu bekleyen gönderimlerden vazgeçilir. Bu geri alınamaz; imza anahtarı kalıcı olarak silinir.',
  confirmSubmit: 'Uç noktayı sil',
  cancel: 'Vazgeç',
  attempts: 'Son gönderim denemeleri',
  attemptsIntro: 'Son {count} deneme, en yenisi önce. Denemeler 30 gün saklanır.',
  noAttempts: 'Henüz gönderim denemesi yok.',
  attemptFields: {
    time: 'Zaman',
    eventType: 'Olay türü',
    eventId: 'Olay kimliği',
    httpStatus: 'HTTP durumu',
    latency: 'Süre',
    error: 'Hata',
    response: 'Yanıt özeti',
    delivery: 'Gönderim',
  },
  noAnswer: 'Yanıt yok',
  ok: 'Yok',
  deliveryStatuses: {
    pending: 'Bekliyor: otomatik olarak yeniden denenecek',
    succeeded: 'Başarılı',
    failed: 'Başarısız: deneme hakkı kalmadı',
  },
  retry: 'Yeniden dene',
  edit: 'Uç noktayı düzenleyin',
  editIntro:
    'Olayların gönderileceği adresi, olay türlerini ve açıklamayı değiştirin. İmza anahtarı aynı kalır. Canlı uç noktalar https kullanmalıdır.',
  editSubmit: 'Değişiklikleri kaydet',
  notices: {
    deleted: 'Uç nokta silindi.',
    disabled: 'Uç nokta devre dışı: gönderimler yeniden etkinleştirilene kadar bekler.',
    enabled: 'Uç nokta etkinleştirildi.',
    retried: 'Gönderim aynı olay kimliğiyle şimdi yeniden denenecek.',
    updated: 'Uç nokta güncellendi.',
    unchanged: 'Hiçbir şey değiştirilmedi.',
    switched:
      'Service-Signature artık yeni anahtarla yapılıyor ve gönderimler bekliyor: alıcınızı yeni anahtarla dağıtın, ardından gönderimleri sürdürün.',
    resumed: 'Gönderimler yeni anahtarla imzalanarak sürdürüldü.',
  },
  errors: {
    no_events: 'En az bir olay seçin.',
    limit_reached:
      'Bu ortamda bir kuruluşun sahip olabileceği en fazla webhook uç noktası (16) zaten var: önce birini silin.',
    invalid_url: 'URL, http ya da https ile başlayan tam bir adres olmalıdır.',
    https_required: 'Canlı uç noktalar https kullanmalıdır.',
    credentials: 'URL kullanıcı adı ya da şifre içermemelidir.',
    private_target:
      'URL özel, loopback, link-local, unique-local, multicast ya da CGNAT bir adres olmamalı ve böyle bir adrese çözülmemelidir.',
    unresolvable: 'URL’deki alan adı çözümlenemiyor.',
    too_long: 'URL (2048) ya da açıklama (500 karakter) çok uzun.',
    url_too_long: 'URL çok uzun (en fazla 2048 karakter).',
    description_too_long: 'Açıklama çok uzun (en fazla 500 karakter).',
    not_permitted: 'Rolünüz webhook uç noktalarını değiştiremez.',
    no_rotation: 'İmzalamayı bekleyen yeni bir anahtar yok: önce anahtarı yenileyin.',
  },
};

export const WEBHOOK_MESSAGES: Record<Locale, WebhookMessages> = { en, tr };

/** Every URL problem the backend reports has a message here. */
export const URL_PROBLEM_KEYS: readonly UrlProblem[] = [
  'invalid_url',
  'https_required',
  'credentials',
  'private_target',
  'unresolvable',
];
