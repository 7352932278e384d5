import { escapeHtml } from '../../../shared/html.js';
import type { RenderedEmail } from '../../email/templates.js';

/** The merchant's e-mail when one of its ratios crosses a level (Turkish first, then English). */
export function ratioLevelCrossedEmail(input: {
  scheme: string;
  ratio: 'visa_style' | 'mastercard_style';
  level: string;
  month: string;
  environment: 'sandbox' | 'live';
  percent: string | null;
  thresholdPercent: string;
  count: number;
  minimumCount: number;
  dashboardUrl: string;
}): RenderedEmail {
  const scheme = input.scheme.charAt(0).toUpperCase() + input.scheme.slice(1);
  const style =
    input.ratio === 'visa_style'
      ? { tr: 'dolandırıcılık bildirimi ve itiraz oranınız', en: 'fraud report and dispute ratio' }
      : { tr: 'ters ibraz (chargeback) oranınız', en: 'chargeback ratio' };
  const mode = { tr: input.environment === 'live' ? 'canlı' : 'sandbox', en: input.environment };
  const ratio = input.percent === null ? '—' : `%${input.percent}`;
  const ratioEn = input.percent === null ? '—' : `${input.percent}%`;
  const tr = [
    `${input.month} ayında ${scheme} kartlı ödemelerdeki ${style.tr} ${ratio} oldu (${input.count} işlem); bu, ` +
      `"${input.level}" seviyesini (%${input.thresholdPercent}, en az ${input.minimumCount} işlem) aştı (${mode.tr}).`,
    'Kart şemaları bu oranı aşan işyerlerini izleme programına alır ve ceza uygulayabilir. İtirazları ' +
      'yanıtlayın, iade kurallarınızı gözden geçirin ve şüpheli ödemeleri durdurun.',
  ];
  const en = [
    `Your ${scheme} ${style.en} for ${input.month} reached ${ratioEn} (${input.count} counted), past the ` +
      `"${input.level}" level (${input.thresholdPercent}%, at least ${input.minimumCount}) (${mode.en}).`,
    'Card schemes put merchants past this ratio into a monitoring programme and may fine them. Answer your ' +
      'disputes, review your refund rules and stop suspicious payments.',
  ];
  const link = { tr: 'Oranları panelde görün', en: 'See the ratios in the dashboard' };
  const text = [
    ...tr,
    `${link.tr}: ${input.dashboardUrl}`,
    '',
    '---',
    '',
    ...en,
    `${link.en}: ${input.dashboardUrl}`,
    '',
  ].join('\n');
  const paragraphs = (lines: string[], label: string) =>
    lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n') +
    `<p><a href="${escapeHtml(input.dashboardUrl)}">${escapeHtml(label)}</a></p>`;
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:40rem">
<div lang="tr">${paragraphs(tr, link.tr)}</div>
<hr>
<div lang="en">${paragraphs(en, link.en)}</div>
</body></html>`;
  return {
    template: 'dispute_ratio_level_crossed',
    subject: `${scheme} oranınız bir eşiği aştı / Your ${scheme} ratio crossed a threshold`,
    text,
    html,
  };
}
