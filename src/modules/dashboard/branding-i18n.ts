import type { Locale } from '../../web/i18n.js';

/** A problem of one field of the branding form (the organizations module's, and an unreadable upload). */
export type BrandingProblem =
  | 'required'
  | 'too_long'
  | 'control_characters'
  | 'format'
  | 'contrast'
  | 'empty'
  | 'too_large'
  | 'svg'
  | 'unsupported'
  | 'unreadable';

/** The branding page's words, Turkish and English. */
export interface BrandingMessages {
  title: string;
  intro: string;
  saved: string;
  readOnly: string;
  notPermitted: string;
  fix: string;
  displayName: string;
  displayNameHint: string;
  brandColor: string;
  /** `{min}`: the WCAG AA ratio. */
  brandColorHint: string;
  noColor: string;
  /** `{ratio}`: the colour's contrast ratio with white. */
  contrast: string;
  current: string;
  change: string;
  logo: string;
  /** `{max}`: the largest logo in KB. */
  logoHint: string;
  currentLogo: string;
  noLogo: string;
  removeLogo: string;
  logoNoscript: string;
  submit: string;
  /** Placeholders: `{max}` (characters or KB), `{color}`, `{ratio}`, `{min}`, `{size}` (KB). */
  problems: Record<BrandingProblem, string>;
}

export const BRANDING_MESSAGES: Record<Locale, BrandingMessages> = {
  en: {
    title: 'Branding',
    intro:
      'What your customers see at the top of every checkout page of your charges, in both environments: your name, and your colour and logo if you set them.',
    saved: 'Branding saved. Checkout pages show it from now on.',
    readOnly: 'Your role can see the branding but not change it. Ask an owner or an admin.',
    notPermitted: 'Your role cannot change the branding. Ask an owner or an admin.',
    fix: 'The branding was not saved. Fix the fields below.',
    displayName: 'Name on the checkout',
    displayNameHint:
      'The name your customers know you by. It starts as the company name of your application.',
    brandColor: 'Brand colour',
    brandColorHint:
      'As # and six hexadecimal digits, for example #0b5cad. The checkout uses it for the buttons (with white text) and your name in the white header, so it needs a contrast ratio of at least {min}:1 with white (WCAG AA). Leave it empty for the gateway’s blue.',
    noColor: 'None: the gateway’s blue.',
    contrast: 'Contrast with white: {ratio}:1',
    current: 'Current branding',
    change: 'Change the branding',
    logo: 'Logo',
    logoHint: 'A PNG, JPEG or WebP image of at most {max} KB. SVG is not accepted.',
    currentLogo: 'Current logo',
    noLogo: 'No logo.',
    removeLogo: 'Remove the logo',
    logoNoscript: 'Uploading a logo needs JavaScript; the name and the colour are saved without it.',
    submit: 'Save branding',
    problems: {
      required: 'Enter the name your customers know you by.',
      too_long: 'The name can have at most {max} characters.',
      control_characters: 'The name cannot contain control characters or text-direction marks.',
      format: 'Enter the colour as # and six hexadecimal digits, for example #0b5cad.',
      contrast:
        '{color} is too light: its contrast ratio with white is {ratio}:1, and the checkout needs at least {min}:1 (WCAG AA) so that white text on it, and it on white, stay readable. Choose a darker colour.',
      empty: 'The logo file is empty.',
      too_large: 'The logo is {size} KB; the largest allowed is {max} KB.',
      svg: 'SVG logos are not accepted, because an SVG file can carry script. Upload a PNG, JPEG or WebP image.',
      unsupported:
        'The logo must be a PNG, JPEG or WebP image. The file’s contents are checked, not its name or type.',
      unreadable: 'The logo upload could not be read. Choose the file again.',
    },
  },
  tr: {
    title: 'Marka',
    intro:
      'Müşterilerinizin, ödemelerinizin her ödeme sayfasının üstünde gördükleri (iki ortamda da): adınız ve belirlediyseniz renginiz ile logonuz.',
    saved: 'Marka ayarları kaydedildi. Ödeme sayfaları artık bunları gösteriyor.',
    readOnly: 'Rolünüz marka ayarlarını görebilir ama değiştiremez. Bir sahip ya da yöneticiye başvurun.',
    notPermitted: 'Rolünüz marka ayarlarını değiştiremez. Bir sahip ya da yöneticiye başvurun.',
    fix: 'Marka ayarları kaydedilmedi. Aşağıdaki alanları düzeltin.',
    displayName: 'Ödeme sayfasındaki ad',
    displayNameHint: 'Müşterilerinizin sizi tanıdığı ad. Başlangıçta başvurunuzdaki şirket adıdır.',
    brandColor: 'Marka rengi',
    brandColorHint:
      '# ve altı onaltılık rakam olarak, örneğin #0b5cad. Ödeme sayfası bu rengi düğmelerde (beyaz yazıyla) ve beyaz başlıktaki adınızda kullanır; bu yüzden beyazla kontrast oranı en az {min}:1 olmalıdır (WCAG AA). Ağ geçidinin mavisi için boş bırakın.',
    noColor: 'Yok: ağ geçidinin mavisi.',
    contrast: 'Beyazla kontrast: {ratio}:1',
    current: 'Şu anki marka ayarları',
    change: 'Marka ayarlarını değiştir',
    logo: 'Logo',
    logoHint: 'En çok {max} KB bir PNG, JPEG ya da WebP görseli. SVG kabul edilmez.',
    currentLogo: 'Şu anki logo',
    noLogo: 'Logo yok.',
    removeLogo: 'Logoyu kaldır',
    logoNoscript: 'Logo yüklemek JavaScript gerektirir; ad ve renk onsuz da kaydedilir.',
    submit: 'Marka ayarlarını kaydet',
    problems: {
      required: 'Müşterilerinizin sizi tanıdığı adı girin.',
      too_long: 'Ad en çok {max} karakter olabilir.',
      control_characters: 'Ad, denetim karakterleri ya da yazı yönü işaretleri içeremez.',
      format: 'Rengi # ve altı onaltılık rakam olarak girin, örneğin #0b5cad.',
      contrast:
        '{color} çok açık: beyazla kontrast oranı {ratio}:1; ödeme sayfası, üzerindeki beyaz yazının ve beyaz üzerindeki kendisinin okunabilmesi için en az {min}:1 ister (WCAG AA). Daha koyu bir renk seçin.',
      empty: 'Logo dosyası boş.',
      too_large: 'Logo {size} KB; en çok {max} KB olabilir.',
      svg: 'SVG logolar kabul edilmez, çünkü bir SVG dosyası betik taşıyabilir. PNG, JPEG ya da WebP görseli yükleyin.',
      unsupported:
        'Logo PNG, JPEG ya da WebP görseli olmalıdır. Dosyanın adı ya da türü değil, içeriği denetlenir.',
      unreadable: 'Yüklenen logo okunamadı. Dosyayı yeniden seçin.',
    },
  },
};

/** A ratio in the page's language: `4.48` in English, `4,48` in Turkish. */
export function ratioText(ratio: number, locale: Locale): string {
  const text = String(ratio);
  return locale === 'tr' ? text.replace('.', ',') : text;
}
