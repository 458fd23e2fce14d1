// The verification messages in the user's language (en, fr, es, ar), as plain text and clean HTML.
import type { Language } from "@tessera/sdk/contract";

const TEXT: Record<
  Language,
  { subject: (p: string) => string; intro: (p: string) => string; expiry: string; ignore: string; sms: (p: string, c: string) => string }
> = {
  en: {
    subject: (p) => `Your ${p} verification code`,
    intro: (p) => `Use this code to confirm it's you on ${p}:`,
    expiry: "It expires in 10 minutes.",
    ignore: "If you did not try to sign in, you can ignore this message; someone may know your password.",
    sms: (p, c) => `${c} is your ${p} verification code. It expires in 10 minutes.`,
  },
  fr: {
    subject: (p) => `Votre code de vérification ${p}`,
    intro: (p) => `Utilisez ce code pour confirmer votre identité sur ${p} :`,
    expiry: "Il expire dans 10 minutes.",
    ignore: "Si vous n'avez pas tenté de vous connecter, ignorez ce message ; quelqu'un connaît peut-être votre mot de passe.",
    sms: (p, c) => `${c} est votre code de vérification ${p}. Il expire dans 10 minutes.`,
  },
  es: {
    subject: (p) => `Tu código de verificación de ${p}`,
    intro: (p) => `Usa este código para confirmar que eres tú en ${p}:`,
    expiry: "Caduca en 10 minutos.",
    ignore: "Si no intentaste iniciar sesión, ignora este mensaje; puede que alguien conozca tu contraseña.",
    sms: (p, c) => `${c} es tu código de verificación de ${p}. Caduca en 10 minutos.`,
  },
  ar: {
    subject: (p) => `رمز التحقق الخاص بك في ${p}`,
    intro: (p) => `استخدم هذا الرمز لتأكيد هويتك على ${p}:`,
    expiry: "تنتهي صلاحيته خلال 10 دقائق.",
    ignore: "إذا لم تحاول تسجيل الدخول، يمكنك تجاهل هذه الرسالة؛ قد يعرف شخص ما كلمة المرور الخاصة بك.",
    sms: (p, c) => `${c} هو رمز التحقق الخاص بك في ${p}. تنتهي صلاحيته خلال 10 دقائق.`,
  },
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function codeEmail(language: Language, project: string, code: string): { subject: string; text: string; html: string } {
  const t = TEXT[language];
  const dir = language === "ar" ? "rtl" : "ltr";
  const p = escapeHtml(project);
  return {
    subject: t.subject(project),
    text: `${t.intro(project)}\n\n${code}\n\n${t.expiry}\n\n${t.ignore}\n`,
    html: `<!doctype html><html lang="${language}" dir="${dir}"><body style="font-family:system-ui,sans-serif;color:#111;max-width:480px;margin:auto;padding:24px">
<p>${escapeHtml(t.intro(project))}</p>
<p style="font-size:32px;letter-spacing:8px;font-weight:700;font-family:ui-monospace,monospace" dir="ltr">${code}</p>
<p>${escapeHtml(t.expiry)}</p><p style="color:#555;font-size:13px">${escapeHtml(t.ignore)}</p>
<p style="color:#888;font-size:12px">${p}</p></body></html>`,
  };
}

export const codeSms = (language: Language, project: string, code: string): string => TEXT[language].sms(project, code);
