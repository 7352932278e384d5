import type { PaymentMethod } from '../../db/schema.js';
import type { Locale } from '../../web/i18n.js';

/** The overview's words, English and Turkish. */
export interface OverviewMessages {
  title: string;
  /** `{days}`: the period's length; `{since}`, `{until}`: its first and last UTC day. */
  period: string;
  periodChoice: string;
  /** `{days}`. */
  lastDays: string;
  badPeriod: string;
  volume: string;
  payments: string;
  successRate: string;
  refunds: string;
  methods: string;
  /** The chart's name for screen readers: `{title}`, `{days}`, `{max}`. */
  chartLabel: string;
  showNumbers: string;
  day: string;
  noOutcome: string;
  /** `{count}` refunds. */
  refundCount: string;
  share: string;
  /** How the figures are counted, under the charts. */
  note: string;
  method: Record<PaymentMethod, string>;
}

const en: OverviewMessages = {
  title: 'Overview',
  period: 'The last {days} days, {since} to {until} (UTC)',
  periodChoice: 'Period',
  lastDays: '{days} days',
  badPeriod: 'Choose a period of 7, 30 or 90 days.',
  volume: 'Gross volume',
  payments: 'Successful payments',
  successRate: 'Success rate',
  refunds: 'Refunded',
  methods: 'Payment methods',
  chartLabel: '{title} per day over {days} days; the highest day: {max}',
  showNumbers: 'Show the numbers',
  day: 'Day (UTC)',
  noOutcome: '–',
  refundCount: '{count, plural, one {# refund} other {# refunds}}',
  share: 'Share of volume',
  note: 'Payments count on the day they were created, by their status now; the success rate is the succeeded share of those that succeeded, failed or expired (pending ones are left out). Refunds count on the day they were asked for, once the acquirer confirmed them.',
  method: {
    credit_card_tr: 'Turkish cards',
    credit_card_international: 'International cards',
    bank_transfer: 'Bank transfer',
  },
};

const tr: OverviewMessages = {
  title: 'Genel bakış',
  period: 'Son {days} gün, {since} – {until} (UTC)',
  periodChoice: 'Dönem',
  lastDays: '{days} gün',
  badPeriod: '7, 30 veya 90 günlük bir dönem seçin.',
  volume: 'Brüt hacim',
  payments: 'Başarılı ödemeler',
  successRate: 'Başarı oranı',
  refunds: 'İade edilen',
  methods: 'Ödeme yöntemleri',
  chartLabel: '{days} gün boyunca günlük {title}; en yüksek gün: {max}',
  showNumbers: 'Rakamları göster',
  day: 'Gün (UTC)',
  noOutcome: '–',
  refundCount: '{count} iade',
  share: 'Hacimdeki payı',
  note: 'Ödemeler oluşturuldukları gün, bugünkü durumlarıyla sayılır; başarı oranı, başarılı, başarısız veya süresi dolmuş ödemeler içinde başarılı olanların payıdır (bekleyenler sayılmaz). İadeler istendikleri gün, ödeme kuruluşu onayladıktan sonra sayılır.',
  method: {
    credit_card_tr: 'Türk kartları',
    credit_card_international: 'Yurt dışı kartları',
    bank_transfer: 'Banka havalesi',
  },
};

export const OVERVIEW_MESSAGES: Record<Locale, OverviewMessages> = { en, tr };
