import { fillMessage, type Locale } from '../../web/i18n.js';
import type { CardField, CardIssue } from './card.js';

export interface CheckoutMessages {
  languageSwitch: string;
  secureCheckout: string;
  testMode: string;
  testModeCards: string;
  amount: string;
  merchantReference: string;
  card: {
    title: string;
    fields: Record<CardField, { label: string; placeholder?: string }>;
    pay: string;
    paying: string;
    issues: Record<CardIssue, string>;
    fix: string;
    declined: string;
    attemptsLeft: string;
    notProcessed: string;
    unavailable: string;
    noscript: string;
  };
  challenge: { title: string; body: string; continue: string };
  inProgress: { title: string; body: string; check: string };
  bankTransfer: {
    title: string;
    intro: string;
    iban: string;
    accountHolder: string;
    paymentReference: string;
    amount: string;
    referenceHint: string;
    status: string;
    waiting: string;
    checking: string;
    unavailable: string;
    simulate: string;
    simulateHint: string;
    simulating: string;
  };
  paid: { title: string; body: string; paidWith: string; card: string; bankTransfer: string };
  failed: { title: string; body: string; reason: string };
  expired: { title: string; body: string };
  attemptsExhausted: { title: string; body: string };
  returnToMerchant: string;
  /** Customer-facing reasons by acquirer failure code; an unknown code shows the acquirer's message. */
  failureReasons: Record<string, string>;
  genericDecline: string;
  errors: {
    notFoundTitle: string;
    notFound: string;
    crossSite: string;
    rateLimited: string;
    invalidRequest: string;
    unavailableTitle: string;
    unavailable: string;
    tryAgain: string;
    errorTitle: string;
    generic: string;
  };
}

const en: CheckoutMessages = {
  languageSwitch: 'Türkçe',
  secureCheckout: 'Secure checkout',
  testMode: 'Test mode: no real money moves.',
  testModeCards: 'Use a test card, for example 4242 4242 4242 4242, any future expiry and any CVC.',
  amount: 'Amount',
  merchantReference: 'Reference',
  card: {
    title: 'Pay by card',
    fields: {
      holderName: { label: 'Name on card' },
      cardNumber: { label: 'Card number', placeholder: '1234 1234 1234 1234' },
      expiry: { label: 'Expiry (MM/YY)', placeholder: 'MM/YY' },
      cvc: { label: 'Security code (CVC)', placeholder: '123' },
    },
    pay: 'Pay {amount}',
    paying: 'Processing…',
    issues: {
      required: 'This field is required.',
      invalid_name: 'Enter the name as it appears on the card.',
      invalid_number: 'This card number is not valid.',
      invalid_expiry: 'Enter the expiry as MM/YY.',
      expired: 'This card has expired.',
      invalid_cvc: 'The security code has 3 or 4 digits.',
    },
    fix: 'Please correct the highlighted fields.',
    declined: 'Your card was declined: {reason}',
    attemptsLeft: 'Attempts left: {count}.',
    notProcessed: 'Your payment could not be processed. Please try again.',
    unavailable: 'The payment service is not reachable right now. Please try again in a moment.',
    noscript: 'Your card details are checked again when you submit the form.',
  },
  challenge: {
    title: 'Confirm with your bank',
    body: 'Your bank asks you to confirm this payment (3-D Secure). You are being taken to its page.',
    continue: 'Continue to your bank',
  },
  inProgress: {
    title: 'Payment in progress',
    body: 'Your card payment is being processed. Please do not send the form again: this page shows the result by itself in a few seconds.',
    check: 'Check the payment status',
  },
  bankTransfer: {
    title: 'Pay by bank transfer',
    intro:
      'Send the exact amount to the account below from your bank. Write the payment reference in the transfer description.',
    iban: 'IBAN',
    accountHolder: 'Account holder',
    paymentReference: 'Payment reference',
    amount: 'Amount to send',
    referenceHint: 'Without the payment reference, your transfer cannot be matched to this payment.',
    status: 'Status',
    waiting: 'Waiting for your transfer. This page updates by itself.',
    checking: 'Checking…',
    unavailable: 'The transfer details are not available right now. Please reload the page in a moment.',
    simulate: 'Simulate the transfer',
    simulateHint: 'Sandbox only: makes the sandbox acquirer receive the transfer of the full amount.',
    simulating: 'Simulating…',
  },
  paid: {
    title: 'Payment received',
    body: 'Thank you. Your payment was successful.',
    paidWith: 'Paid with',
    card: 'Card',
    bankTransfer: 'Bank transfer',
  },
  failed: {
    title: 'Payment failed',
    body: 'This payment could not be completed.',
    reason: 'Reason',
  },
  expired: {
    title: 'This payment link has expired',
    body: 'The time to pay has run out. Ask the merchant for a new payment link.',
  },
  attemptsExhausted: {
    title: 'Too many attempts',
    body: 'This payment cannot take another card: the number of attempts is used up. Ask the merchant for a new payment link.',
  },
  returnToMerchant: 'Return to the merchant',
  failureReasons: {
    insufficient_funds: 'The card has insufficient funds.',
    card_declined: 'The card was declined.',
    stolen_card: 'The card was declined.',
    do_not_honor: 'The card was declined.',
    expired_card: 'The card has expired.',
    incorrect_cvc: 'The security code is incorrect.',
    processing_error: 'An error occurred while processing the card.',
    authentication_failed: 'The bank could not confirm the payment (3-D Secure).',
    amount_mismatch: 'The amount transferred did not match the amount due.',
  },
  genericDecline: 'The payment was declined.',
  errors: {
    notFoundTitle: 'Payment not found',
    notFound: 'This payment link is not valid. Check the link or ask the merchant for a new one.',
    crossSite: 'This form can only be sent from the payment page.',
    rateLimited: 'Too many requests from your network. Wait a minute and try again.',
    invalidRequest: 'The form could not be read. Please go back and try again.',
    unavailableTitle: 'Please try again',
    unavailable: 'The payment service is not reachable right now. Please try again in a moment.',
    tryAgain: 'Try again',
    errorTitle: 'Something went wrong',
    generic: 'Something went wrong. Please try again. Reference:',
  },
};

const tr: CheckoutMessages = {
  languageSwitch: 'English',
  secureCheckout: 'Güvenli ödeme',
  testMode: 'Test modu: gerçek para hareket etmez.',
  testModeCards:
    'Bir test kartı kullanın, örneğin 4242 4242 4242 4242, ileri bir son kullanma tarihi ve herhangi bir CVC.',
  amount: 'Tutar',
  merchantReference: 'Referans',
  card: {
    title: 'Kartla öde',
    fields: {
      holderName: { label: 'Kart üzerindeki isim' },
      cardNumber: { label: 'Kart numarası', placeholder: '1234 1234 1234 1234' },
      expiry: { label: 'Son kullanma (AA/YY)', placeholder: 'AA/YY' },
      cvc: { label: 'Güvenlik kodu (CVC)', placeholder: '123' },
    },
    pay: '{amount} öde',
    paying: 'İşleniyor…',
    issues: {
      required: 'Bu alan zorunludur.',
      invalid_name: 'İsmi kartta yazdığı gibi girin.',
      invalid_number: 'Bu kart numarası geçerli değil.',
      invalid_expiry: 'Son kullanma tarihini AA/YY olarak girin.',
      expired: 'Bu kartın süresi dolmuş.',
      invalid_cvc: 'Güvenlik kodu 3 veya 4 hanelidir.',
    },
    fix: 'Lütfen işaretli alanları düzeltin.',
    declined: 'Kartınız reddedildi: {reason}',
    attemptsLeft: 'Kalan deneme hakkı: {count}.',
    notProcessed: 'Ödemeniz işlenemedi. Lütfen tekrar deneyin.',
    unavailable: 'Ödeme hizmetine şu anda ulaşılamıyor. Lütfen biraz sonra tekrar deneyin.',
    noscript: 'Kart bilgileriniz formu gönderdiğinizde yeniden kontrol edilir.',
  },
  challenge: {
    title: 'Bankanızla onaylayın',
    body: 'Bankanız bu ödemeyi onaylamanızı istiyor (3-D Secure). Bankanızın sayfasına yönlendiriliyorsunuz.',
    continue: 'Bankanızın sayfasına devam edin',
  },
  inProgress: {
    title: 'Ödemeniz işleniyor',
    body: 'Kartla ödemeniz işleniyor. Lütfen formu tekrar göndermeyin: bu sayfa birkaç saniye içinde sonucu kendiliğinden gösterir.',
    check: 'Ödeme durumunu kontrol et',
  },
  bankTransfer: {
    title: 'Havale/EFT ile öde',
    intro: 'Tam tutarı bankanızdan aşağıdaki hesaba gönderin. Açıklama alanına ödeme referansını yazın.',
    iban: 'IBAN',
    accountHolder: 'Hesap sahibi',
    paymentReference: 'Ödeme referansı',
    amount: 'Gönderilecek tutar',
    referenceHint: 'Ödeme referansı olmadan havaleniz bu ödemeyle eşleştirilemez.',
    status: 'Durum',
    waiting: 'Havaleniz bekleniyor. Bu sayfa kendiliğinden güncellenir.',
    checking: 'Kontrol ediliyor…',
    unavailable: 'Havale bilgileri şu anda alınamıyor. Lütfen biraz sonra sayfayı yenileyin.',
    simulate: 'Havaleyi simüle et',
    simulateHint: 'Yalnızca sandbox: sandbox ödeme kuruluşu tam tutarlı havaleyi almış olur.',
    simulating: 'Simüle ediliyor…',
  },
  paid: {
    title: 'Ödeme alındı',
    body: 'Teşekkürler. Ödemeniz başarıyla tamamlandı.',
    paidWith: 'Ödeme aracı',
    card: 'Kart',
    bankTransfer: 'Havale/EFT',
  },
  failed: {
    title: 'Ödeme başarısız',
    body: 'Bu ödeme tamamlanamadı.',
    reason: 'Neden',
  },
  expired: {
    title: 'Bu ödeme bağlantısının süresi doldu',
    body: 'Ödeme süresi sona erdi. Üye işyerinden yeni bir ödeme bağlantısı isteyin.',
  },
  attemptsExhausted: {
    title: 'Çok fazla deneme',
    body: 'Bu ödeme için başka kart denenemez: deneme hakkı doldu. Üye işyerinden yeni bir ödeme bağlantısı isteyin.',
  },
  returnToMerchant: 'Üye işyerine dön',
  failureReasons: {
    insufficient_funds: 'Kartın bakiyesi yetersiz.',
    card_declined: 'Kart reddedildi.',
    stolen_card: 'Kart reddedildi.',
    do_not_honor: 'Kart reddedildi.',
    expired_card: 'Kartın süresi dolmuş.',
    incorrect_cvc: 'Güvenlik kodu hatalı.',
    processing_error: 'Kart işlenirken bir hata oluştu.',
    authentication_failed: 'Banka ödemeyi doğrulayamadı (3-D Secure).',
    amount_mismatch: 'Gönderilen tutar ödenecek tutarla eşleşmedi.',
  },
  genericDecline: 'Ödeme reddedildi.',
  errors: {
    notFoundTitle: 'Ödeme bulunamadı',
    notFound:
      'Bu ödeme bağlantısı geçerli değil. Bağlantıyı kontrol edin veya üye işyerinden yenisini isteyin.',
    crossSite: 'Bu form yalnızca ödeme sayfasından gönderilebilir.',
    rateLimited: 'Ağınızdan çok fazla istek geldi. Bir dakika bekleyip tekrar deneyin.',
    invalidRequest: 'Form okunamadı. Lütfen geri dönüp tekrar deneyin.',
    unavailableTitle: 'Lütfen tekrar deneyin',
    unavailable: 'Ödeme hizmetine şu anda ulaşılamıyor. Lütfen biraz sonra tekrar deneyin.',
    tryAgain: 'Tekrar dene',
    errorTitle: 'Bir sorun oluştu',
    generic: 'Bir sorun oluştu. Lütfen tekrar deneyin. Referans:',
  },
};

export const CHECKOUT_MESSAGES: Record<Locale, CheckoutMessages> = { en, tr };

/** Fills `{name}` placeholders and plural forms (`fillMessage`); values are plain text (the templates escape them). */
export function fill(template: string, values: Record<string, string | number>): string {
  return fillMessage(template, values);
}

/** The customer-facing reason of a decline or a failure. */
export function failureReason(
  m: CheckoutMessages,
  failure: { code: string | null; message: string | null },
): string {
  const known = failure.code === null ? undefined : m.failureReasons[failure.code];
  return known ?? failure.message ?? m.genericDecline;
}
