// The one-time code messages (docs/challenges.md, docs/challenge-app.md) in the user's language (en, fr, es, ar): an email as plain text and as
// HTML in the project's colour and logo, and a text message ending with the WebOTP line. Each says why it was sent
// (the challenge type: a sign-in we did not recognise, too many devices, a sign-up…) and how long the code lasts
// (CHALLENGE_CODE_TTL_MS), so that the person who did not ask for it knows what to do.
import { brandColors, type ChallengeType, type Language, safeLogo } from "@tessera/sdk/contract";

export interface MessageInput {
  language: Language;
  code: string;
  /** What the challenge guards against; the message says why it was sent accordingly. */
  type?: ChallengeType;
  /** How long the code stays valid (CHALLENGE_CODE_TTL_MS). */
  ttlMs: number;
  project: { name: string; logo_url?: string; color?: string };
  /** The host the code is entered on (the challenge page's), for the WebOTP line of texts. */
  host: string;
}

type Why = ChallengeType | "default";
type Catalogue = {
  subject: (p: string) => string;
  why: Record<Why, (p: string) => string>;
  /** What to do if you did not ask for it; a sign-in we did not recognise calls for more than ignoring. */
  ignore: { takeover: string; signup: (p: string) => string; other: string };
  expires: (duration: string) => string;
  sms: (p: string, code: string, duration: string) => string;
};

const TEXT: Record<Language, Catalogue> = {
  en: {
    subject: (p) => `Your ${p} verification code`,
    why: {
      account_takeover: (p) =>
        `We noticed a sign-in to your ${p} account from a device or place we don't recognise. If it was you, enter this code:`,
      account_sharing: (p) =>
        `Your ${p} account is signed in on more devices than allowed. Enter this code to choose which devices stay signed in:`,
      fake_account: (p) => `Use this code to finish creating your ${p} account:`,
      repeat_trial: (p) => `Use this code to confirm your details and start your ${p} trial:`,
      multi_accounting: (p) => `Use this code to confirm your details on ${p}:`,
      default: (p) => `Use this code to confirm it's you on ${p}:`,
    },
    ignore: {
      takeover: "If this wasn't you, don't share this code: someone may know your password. Change it now.",
      signup: (p) => `If you didn't sign up to ${p}, you can ignore this message.`,
      other: "If you didn't ask for this code, you can ignore this message.",
    },
    expires: (d) => `It expires in ${d}.`,
    sms: (p, c, d) => `${c} is your ${p} verification code. It expires in ${d}. Don't share it.`,
  },
  fr: {
    subject: (p) => `Votre code de vérification ${p}`,
    why: {
      account_takeover: (p) =>
        `Nous avons remarqué une connexion à votre compte ${p} depuis un appareil ou un lieu que nous ne connaissons pas. Si c'était vous, saisissez ce code :`,
      account_sharing: (p) =>
        `Votre compte ${p} est connecté sur plus d'appareils que permis. Saisissez ce code pour choisir les appareils qui restent connectés :`,
      fake_account: (p) => `Utilisez ce code pour terminer la création de votre compte ${p} :`,
      repeat_trial: (p) => `Utilisez ce code pour confirmer vos coordonnées et commencer votre essai ${p} :`,
      multi_accounting: (p) => `Utilisez ce code pour confirmer vos coordonnées sur ${p} :`,
      default: (p) => `Utilisez ce code pour confirmer votre identité sur ${p} :`,
    },
    ignore: {
      takeover:
        "Si ce n'était pas vous, ne communiquez ce code à personne : quelqu'un connaît peut-être votre mot de passe. Changez-le dès maintenant.",
      signup: (p) => `Si vous ne vous êtes pas inscrit sur ${p}, ignorez ce message.`,
      other: "Si vous n'avez pas demandé ce code, ignorez ce message.",
    },
    expires: (d) => `Il expire dans ${d}.`,
    sms: (p, c, d) => `${c} est votre code de vérification ${p}. Il expire dans ${d}. Ne le communiquez à personne.`,
  },
  es: {
    subject: (p) => `Tu código de verificación de ${p}`,
    why: {
      account_takeover: (p) =>
        `Hemos detectado un inicio de sesión en tu cuenta de ${p} desde un dispositivo o lugar que no reconocemos. Si fuiste tú, introduce este código:`,
      account_sharing: (p) =>
        `Tu cuenta de ${p} tiene la sesión iniciada en más dispositivos de los permitidos. Introduce este código para elegir qué dispositivos siguen conectados:`,
      fake_account: (p) => `Usa este código para terminar de crear tu cuenta de ${p}:`,
      repeat_trial: (p) => `Usa este código para confirmar tus datos y empezar tu prueba de ${p}:`,
      multi_accounting: (p) => `Usa este código para confirmar tus datos en ${p}:`,
      default: (p) => `Usa este código para confirmar que eres tú en ${p}:`,
    },
    ignore: {
      takeover: "Si no fuiste tú, no compartas este código: puede que alguien conozca tu contraseña. Cámbiala ahora.",
      signup: (p) => `Si no te registraste en ${p}, puedes ignorar este mensaje.`,
      other: "Si no solicitaste este código, puedes ignorar este mensaje.",
    },
    expires: (d) => `Caduca en ${d}.`,
    sms: (p, c, d) => `${c} es tu código de verificación de ${p}. Caduca en ${d}. No lo compartas.`,
  },
  ar: {
    subject: (p) => `رمز التحقق الخاص بك في ${p}`,
    why: {
      account_takeover: (p) => `لاحظنا تسجيل دخول إلى حسابك في ${p} من جهاز أو مكان لا نعرفه. إذا كنت أنت، فأدخل هذا الرمز:`,
      account_sharing: (p) => `حسابك في ${p} مسجَّل الدخول على أجهزة أكثر من المسموح به. أدخل هذا الرمز لاختيار الأجهزة التي تبقى متصلة:`,
      fake_account: (p) => `استخدم هذا الرمز لإكمال إنشاء حسابك في ${p}:`,
      repeat_trial: (p) => `استخدم هذا الرمز لتأكيد بياناتك وبدء الفترة التجريبية في ${p}:`,
      multi_accounting: (p) => `استخدم هذا الرمز لتأكيد بياناتك في ${p}:`,
      default: (p) => `استخدم هذا الرمز لتأكيد هويتك على ${p}:`,
    },
    ignore: {
      takeover: "إذا لم تكن أنت، فلا تشارك هذا الرمز مع أحد: قد يعرف شخص ما كلمة المرور الخاصة بك. غيّرها الآن.",
      signup: (p) => `إذا لم تقم بالتسجيل في ${p}، يمكنك تجاهل هذه الرسالة.`,
      other: "إذا لم تطلب هذا الرمز، يمكنك تجاهل هذه الرسالة.",
    },
    expires: (d) => `تنتهي صلاحيته خلال ${d}.`,
    sms: (p, c, d) => `${c} هو رمز التحقق الخاص بك في ${p}. تنتهي صلاحيته خلال ${d}. لا تشاركه مع أحد.`,
  },
};

const SIGNUP_TYPES: ReadonlySet<Why> = new Set(["fake_account", "repeat_trial"]);

function ignoreLine(t: Catalogue, type: Why, project: string): string {
  if (type === "account_takeover") return t.ignore.takeover;
  return SIGNUP_TYPES.has(type) ? t.ignore.signup(project) : t.ignore.other;
}

/** "10 minutes", "10 minutos", "١٠ دقائق": whole minutes, or seconds below one, in the language's own words. */
export function duration(language: Language, ms: number): string {
  const [value, unit] = ms >= 60_000 ? [Math.round(ms / 60_000), "minute"] : [Math.max(1, Math.round(ms / 1000)), "second"];
  return new Intl.NumberFormat(language, { style: "unit", unit, unitDisplay: "long" }).format(value);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function codeEmail(m: MessageInput): { subject: string; text: string; html: string } {
  const t = TEXT[m.language];
  const type: Why = m.type ?? "default";
  const p = m.project.name;
  const why = t.why[type](p);
  const expires = t.expires(duration(m.language, m.ttlMs));
  const ignore = ignoreLine(t, type, p);
  const dir = m.language === "ar" ? "rtl" : "ltr";
  const { brand, ink } = brandColors(m.project.color);
  const logo = safeLogo(m.project.logo_url);
  const header = logo
    ? `<img src="${escapeHtml(logo)}" alt="${escapeHtml(p)}" height="40" style="height:40px;max-width:200px;display:block">`
    : `<span style="font-size:18px;font-weight:700;color:${ink}">${escapeHtml(p)}</span>`;
  return {
    subject: t.subject(p),
    text: `${why}\n\n${m.code}\n\n${expires}\n\n${ignore}\n\n— ${p}\n`,
    html: `<!doctype html><html lang="${m.language}" dir="${dir}"><head><meta charset="utf-8"><meta name="color-scheme" content="light"><title>${escapeHtml(t.subject(p))}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2433">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;padding:24px 0"><tr><td align="center">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:480px;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:${brand};padding:16px 24px">${header}</td></tr>
<tr><td style="padding:24px">
<p style="margin:0 0 16px;font-size:16px;line-height:1.5">${escapeHtml(why)}</p>
<p dir="ltr" style="margin:0 0 16px;font:700 32px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:8px;text-align:center;border:2px solid ${brand};border-radius:8px;padding:12px">${m.code}</p>
<p style="margin:0 0 16px;font-size:14px">${escapeHtml(expires)}</p>
<p style="margin:0;font-size:13px;color:#5b6473">${escapeHtml(ignore)}</p>
</td></tr></table></td></tr></table></body></html>`,
  };
}

/**
 * The text message. Its last line is the WebOTP line (`@host #code`, on a line of its own): a phone's browser offers
 * the code to the challenge page on that host, so it fills in by itself.
 */
export function codeSms(m: MessageInput): string {
  return `${TEXT[m.language].sms(m.project.name, m.code, duration(m.language, m.ttlMs))}\n\n@${m.host} #${m.code}`;
}
