import type { Locale } from '../../web/i18n.js';

type Scheme = 'visa' | 'mastercard' | 'troy';
type Ratio = 'visaStyle' | 'mastercardStyle';

/** The chargeback-ratio page's words, Turkish and English (issue 37 item 7, docs/dispute-ratios.md). */
export interface DisputeRatioMessages {
  title: string;
  /** `{environment}`: the session's environment; `{month}`: the month shown; `{asOf}`: when counted. */
  intro: string;
  notPermitted: string;
  schemes: Record<Scheme, string>;
  ratios: Record<Ratio, { name: string; explain: string; count: string; sales: string }>;
  /** `{scheme}`: the card scheme. */
  noActivity: string;
  monthSoFar: string;
  projected: string;
  ratio: string;
  noSales: string;
  /** Under the Visa-style figures: `{fraudWarnings}`, `{disputes}`, `{overlap}`. */
  visaBreakdown: string;
  countedOnce: string;
  countedBoth: string;
  levels: {
    heading: string;
    none: string;
    level: string;
    threshold: string;
    minimumCount: string;
    proximity: string;
    status: string;
    crossed: string;
    projectedCrossed: string;
    clear: string;
    /** `{level}`: the level's name. */
    proximityLabel: string;
  };
  /** The programme levels' names; a level an operator adds under another name is shown as named. */
  levelNames: Record<string, string>;
  chart: {
    /** `{ratio}`, `{scheme}`. */
    caption: string;
    /** The image's description: `{ratio}`, `{scheme}`, `{history}`, `{current}`, `{projected}`. */
    label: string;
    /** `{max}`: the top of the scale. */
    scale: string;
    history: string;
    soFar: string;
    projection: string;
    threshold: string;
  };
  history: { heading: string; month: string };
  projection: string;
}

export const DISPUTE_RATIO_MESSAGES: Record<Locale, DisputeRatioMessages> = {
  en: {
    title: 'Chargeback ratios',
    intro:
      'The ratios the card schemes watch, for {month} so far ({environment}, counted {asOf}), with a projection to the month end and the six months before. Past a scheme’s level, the scheme puts the merchant into a monitoring programme and may fine it.',
    notPermitted: 'Your role cannot see the chargeback ratios. Ask an owner or an admin.',
    schemes: { visa: 'Visa', mastercard: 'Mastercard', troy: 'Troy' },
    ratios: {
      visaStyle: {
        name: 'Visa-style ratio',
        explain: 'Fraud reports and disputes of the month over its settled card sales.',
        count: 'Fraud reports and disputes',
        sales: 'Card sales this month',
      },
      mastercardStyle: {
        name: 'Mastercard-style ratio',
        explain: 'Chargebacks of the month over the card sales of the month before.',
        count: 'Chargebacks',
        sales: 'Card sales last month',
      },
    },
    noActivity: 'No {scheme} card sales, disputes or fraud reports in the last seven months.',
    monthSoFar: 'Month so far',
    projected: 'Projected to the month end',
    ratio: 'Ratio',
    noSales: 'no sales',
    visaBreakdown:
      '{fraudWarnings, plural, one {# fraud report} other {# fraud reports}} and {disputes, plural, one {# dispute} other {# disputes}}; {overlap, plural, one {# fraud report is} other {# fraud reports are}} on a disputed payment.',
    countedOnce: 'A payment with both a fraud report and a dispute counts once.',
    countedBoth: 'A payment with both a fraud report and a dispute counts twice.',
    levels: {
      heading: 'Levels',
      none: 'No programme level for this ratio.',
      level: 'Level',
      threshold: 'Threshold',
      minimumCount: 'At least',
      proximity: 'How close',
      status: 'Status',
      crossed: 'Crossed',
      projectedCrossed: 'Projected to cross',
      clear: 'Below',
      proximityLabel: 'How close to the {level} level',
    },
    levelNames: {
      watch: 'Watch',
      early_warning: 'Early warning',
      excessive: 'Excessive',
      high_excessive: 'High excessive',
    },
    chart: {
      caption: '{ratio}, {scheme}: six months and this month',
      label:
        '{ratio} of {scheme} by month. History: {history}. This month so far: {current}; projected: {projected}.',
      scale: 'Scale: 0 to {max}',
      history: 'Past months',
      soFar: 'This month so far',
      projection: 'Projection (dashed)',
      threshold: 'Levels',
    },
    history: { heading: 'The six months before', month: 'Month' },
    projection:
      'The projection is linear by elapsed time: each count so far, scaled to the whole month. The Mastercard-style projection scales the chargebacks only.',
  },
  tr: {
    title: 'İtiraz oranları',
    intro:
      'Kart şemalarının izlediği oranlar: {month} ayının şu ana kadarki değerleri ({environment}, {asOf} itibarıyla), ay sonu tahmini ve önceki altı ay. Bir şemanın seviyesi aşılınca şema işyerini izleme programına alır ve ceza uygulayabilir.',
    notPermitted: 'Rolünüz itiraz oranlarını göremez. Bir sahip ya da yöneticiye başvurun.',
    schemes: { visa: 'Visa', mastercard: 'Mastercard', troy: 'Troy' },
    ratios: {
      visaStyle: {
        name: 'Visa tipi oran',
        explain:
          'Ayın dolandırıcılık bildirimleri ve itirazları, ayın tamamlanmış kartlı satışlarına bölünür.',
        count: 'Dolandırıcılık bildirimi ve itiraz',
        sales: 'Bu ayın kartlı satışları',
      },
      mastercardStyle: {
        name: 'Mastercard tipi oran',
        explain: 'Ayın ters ibrazları (chargeback), önceki ayın kartlı satışlarına bölünür.',
        count: 'Ters ibraz',
        sales: 'Geçen ayın kartlı satışları',
      },
    },
    noActivity: 'Son yedi ayda {scheme} kartlı satış, itiraz ya da dolandırıcılık bildirimi yok.',
    monthSoFar: 'Ayın şu ana kadarı',
    projected: 'Ay sonu tahmini',
    ratio: 'Oran',
    noSales: 'satış yok',
    visaBreakdown:
      '{fraudWarnings} dolandırıcılık bildirimi ve {disputes} itiraz; {overlap} bildirim itiraz edilmiş bir ödemeye ait.',
    countedOnce: 'Hem dolandırıcılık bildirimi hem itirazı olan bir ödeme bir kez sayılır.',
    countedBoth: 'Hem dolandırıcılık bildirimi hem itirazı olan bir ödeme iki kez sayılır.',
    levels: {
      heading: 'Seviyeler',
      none: 'Bu oran için program seviyesi yok.',
      level: 'Seviye',
      threshold: 'Eşik',
      minimumCount: 'En az',
      proximity: 'Yakınlık',
      status: 'Durum',
      crossed: 'Aşıldı',
      projectedCrossed: 'Aşılması bekleniyor',
      clear: 'Altında',
      proximityLabel: '{level} seviyesine yakınlık',
    },
    levelNames: {
      watch: 'İzleme',
      early_warning: 'Erken uyarı',
      excessive: 'Aşırı',
      high_excessive: 'Çok aşırı',
    },
    chart: {
      caption: '{ratio}, {scheme}: altı ay ve bu ay',
      label:
        '{scheme} için aylara göre {ratio}. Geçmiş: {history}. Bu ayın şu ana kadarı: {current}; tahmin: {projected}.',
      scale: 'Ölçek: 0 ile {max} arası',
      history: 'Geçmiş aylar',
      soFar: 'Bu ayın şu ana kadarı',
      projection: 'Tahmin (kesikli)',
      threshold: 'Seviyeler',
    },
    history: { heading: 'Önceki altı ay', month: 'Ay' },
    projection:
      'Tahmin geçen süreye göre doğrusaldır: şu ana kadarki her sayı ayın tamamına ölçeklenir. Mastercard tipi tahmin yalnızca ters ibrazları ölçekler.',
  },
};
