import type { Locale } from '../../web/i18n.js';
import type { ExportKind } from '../exports/csv.js';
import type { ExportRangeError } from '../exports/range.js';

/** The exports page's words, Turkish and English. */
export interface ExportMessages {
  title: string;
  /** `{environment}`: the session's environment. */
  intro: string;
  kind: string;
  kinds: Record<ExportKind, string>;
  from: string;
  to: string;
  /** `{max}`: the longest range in days. */
  rangeHint: string;
  download: string;
  /** What the file holds and how cells are written. */
  columnsNote: string;
  notPermitted: string;
  /** `{max}`: the longest range in days; `{earliest}`, `{latest}`: the first and last date accepted. */
  errors: Record<ExportRangeError, string>;
}

export const EXPORT_MESSAGES: Record<Locale, ExportMessages> = {
  en: {
    title: 'Exports',
    intro:
      'Download the {environment} charges, refunds or payouts created between two dates as a CSV file, oldest first.',
    kind: 'What to export',
    kinds: { charges: 'Charges', refunds: 'Refunds', payouts: 'Payouts' },
    from: 'From (UTC date, included)',
    to: 'To (UTC date, included)',
    rangeHint: 'Days are UTC days. At most {max} days per file.',
    download: 'Download CSV',
    columnsNote:
      'Amounts are in minor units and as exact decimals; times are ISO 8601 in UTC. A cell that starts with =, +, -, @ or a control character is prefixed with an apostrophe so that a spreadsheet shows it as text.',
    notPermitted: 'Your role cannot export. Ask an owner or an admin.',
    errors: {
      kind: 'Choose charges, refunds or payouts.',
      fromMissing: 'Enter the first day.',
      toMissing: 'Enter the last day.',
      fromInvalid: 'The first day must be a date (YYYY-MM-DD) between {earliest} and {latest}.',
      toInvalid: 'The last day must be a date (YYYY-MM-DD) between {earliest} and {latest}.',
      order: 'The first day must not be after the last day.',
      tooLong: 'The range is longer than {max} days; export it in parts.',
    },
  },
  tr: {
    title: 'Dışa aktarım',
    intro:
      'İki tarih arasında oluşturulan {environment} ödemelerini, iadelerini veya USDT ödemelerini CSV dosyası olarak indirin; en eskiler önce.',
    kind: 'Ne dışa aktarılsın',
    kinds: { charges: 'Ödemeler', refunds: 'İadeler', payouts: 'USDT ödemeleri' },
    from: 'Başlangıç (UTC tarih, dahil)',
    to: 'Bitiş (UTC tarih, dahil)',
    rangeHint: 'Günler UTC günleridir. Dosya başına en çok {max} gün.',
    download: 'CSV indir',
    columnsNote:
      'Tutarlar hem küçük birim cinsinden hem de tam ondalık olarak verilir; zamanlar UTC’de ISO 8601’dir. =, +, -, @ veya bir kontrol karakteriyle başlayan hücrelerin başına, hesap tablosu onları metin olarak göstersin diye kesme işareti eklenir.',
    notPermitted: 'Rolünüz dışa aktarım yapamaz. Bir hesap sahibine veya yöneticiye başvurun.',
    errors: {
      kind: 'Ödemeler, iadeler veya USDT ödemelerinden birini seçin.',
      fromMissing: 'İlk günü girin.',
      toMissing: 'Son günü girin.',
      fromInvalid: 'İlk gün {earliest} ile {latest} arasında bir tarih (YYYY-AA-GG) olmalıdır.',
      toInvalid: 'Son gün {earliest} ile {latest} arasında bir tarih (YYYY-AA-GG) olmalıdır.',
      order: 'İlk gün son günden sonra olamaz.',
      tooLong: 'Aralık {max} günden uzun; parça parça dışa aktarın.',
    },
  },
};
