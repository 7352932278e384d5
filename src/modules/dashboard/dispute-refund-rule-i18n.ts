import type { Locale } from '../../web/i18n.js';

/** The auto-refund rules page's words, Turkish and English (issue 37 item 5). */
export interface DisputeRefundRuleMessages {
  title: string;
  intro: string;
  saved: string;
  readOnly: string;
  notPermitted: string;
  fix: string;
  on: string;
  off: string;
  /** `{amount}`: the limit. */
  upTo: string;
  anyAmount: string;
  /** `{time}`: since when the rule is on. */
  since: string;
  enabled: string;
  maxAmount: string;
  maxAmountHint: string;
  amountInvalid: string;
  submit: string;
  kinds: Record<'dispute_alert' | 'fraud_warning', { heading: string; explain: string }>;
}

export const DISPUTE_REFUND_RULE_MESSAGES: Record<Locale, DisputeRefundRuleMessages> = {
  en: {
    title: 'Auto-refund rules',
    intro:
      'Refund a payment automatically when its card issuer warns before a dispute. A refunded alert never becomes a dispute, so it does not count against your chargeback ratio; a fraud report still counts, even refunded. A rule covers what arrives after you switch it on.',
    saved: 'Rule saved.',
    readOnly: 'Your role can see the rules but not change them. Ask an owner or an admin.',
    notPermitted: 'Your role cannot change the auto-refund rules. Ask an owner or an admin.',
    fix: 'The rule was not saved. Fix the field below.',
    on: 'On',
    off: 'Off',
    upTo: 'up to {amount}',
    anyAmount: 'any amount',
    since: 'since {time}',
    enabled: 'Refund automatically',
    maxAmount: 'Largest amount (TRY)',
    maxAmountHint: 'For example 2000 or 2000,50. Leave it empty to refund any amount.',
    amountInvalid: 'Enter an amount in TRY with at most two decimals, more than zero.',
    submit: 'Save',
    kinds: {
      dispute_alert: {
        heading: 'Pre-dispute alerts',
        explain:
          'The issuer drops the case if the payment is refunded before the alert’s deadline. The alert’s amount is refunded (all that remains when less does).',
      },
      fraud_warning: {
        heading: 'Early fraud warnings',
        explain:
          'The issuer reported the payment as fraud. What remains refundable of the payment is refunded, unless a dispute already holds it. The limit applies to the payment’s amount.',
      },
    },
  },
  tr: {
    title: 'Otomatik iade kuralları',
    intro:
      'Kart çıkaran banka itirazdan önce uyardığında ödemeyi otomatik olarak iade edin. İade edilen bir uyarı itiraza dönüşmez, bu yüzden itiraz oranınıza sayılmaz; dolandırıcılık bildirimi ise iade edilse de sayılır. Bir kural, açtığınız andan sonra gelenleri kapsar.',
    saved: 'Kural kaydedildi.',
    readOnly: 'Rolünüz kuralları görebilir ama değiştiremez. Bir sahip ya da yöneticiye başvurun.',
    notPermitted: 'Rolünüz otomatik iade kurallarını değiştiremez. Bir sahip ya da yöneticiye başvurun.',
    fix: 'Kural kaydedilmedi. Aşağıdaki alanı düzeltin.',
    on: 'Açık',
    off: 'Kapalı',
    upTo: 'en fazla {amount}',
    anyAmount: 'her tutar',
    since: '{time} tarihinden beri',
    enabled: 'Otomatik iade et',
    maxAmount: 'En yüksek tutar (TRY)',
    maxAmountHint: 'Örneğin 2000 ya da 2000,50. Her tutarı iade etmek için boş bırakın.',
    amountInvalid: 'Sıfırdan büyük, en fazla iki ondalıklı bir TRY tutarı girin.',
    submit: 'Kaydet',
    kinds: {
      dispute_alert: {
        heading: 'İtiraz öncesi uyarılar',
        explain:
          'Ödeme, uyarının son tarihinden önce iade edilirse banka dosyayı kapatır. Uyarının tutarı iade edilir (daha azı kaldıysa kalanın tamamı).',
      },
      fraud_warning: {
        heading: 'Erken dolandırıcılık uyarıları',
        explain:
          'Banka ödemeyi dolandırıcılık olarak bildirdi. Bir itiraz tutmuyorsa ödemenin iade edilebilir kalanı iade edilir. Sınır, ödemenin tutarına uygulanır.',
      },
    },
  },
};
