// Spanish messages (same keys as en.ts).
import type { Messages } from "./en.js";

const plural = (n: number, one: string, other: string) => (n === 1 ? one : other);

export const es: Messages = {
  dir: "ltr",
  language: "Idioma",
  pageTitle: (project) => `Verificación · ${project}`,
  loading: "Cargando…",
  intro: {
    account_takeover: [
      "Confirma que eres tú",
      "Hemos detectado un inicio de sesión inusual en tu cuenta. Para protegerla, confirma que eres tú con un código de un solo uso.",
    ],
    account_sharing: [
      "Demasiados dispositivos en esta cuenta",
      "Esta cuenta se usa en más dispositivos de los permitidos. El titular puede confirmar con un código de un solo uso y cerrar la sesión en los dispositivos que no usa.",
    ],
    repeat_trial: [
      "Confirma tus datos",
      "Este dispositivo ya se usó para una prueba. Confirma tus datos de contacto con un código de un solo uso para continuar.",
    ],
    multi_accounting: [
      "Confirma que eres tú",
      "Este dispositivo está vinculado a otras cuentas. Confirma tus datos de contacto con un código de un solo uso para continuar.",
    ],
    fake_account: [
      "Confirma tus datos de contacto",
      "Para proteger este servicio de cuentas falsas, confirma tu correo o teléfono con un código de un solo uso.",
    ],
    default: ["Confirma que eres tú", "Por tu seguridad, confirma que eres tú con un código de un solo uso."],
  },
  limit: (n) => `Se permiten hasta ${n} ${plural(n, "dispositivo", "dispositivos")} por cuenta.`,
  noticed: "Lo que hemos detectado",
  reasons: {
    new_ip: "Un inicio de sesión desde una red nueva",
    new_device: "Un inicio de sesión desde un dispositivo o navegador nuevo",
    impossible_travel: "Inicios de sesión desde lugares demasiado lejanos en poco tiempo",
    anonymous: "Una conexión a través de VPN, proxy o Tor",
    devices: "Más dispositivos de los permitidos",
    shared: "Un dispositivo compartido por varias cuentas",
    velocity: "Muchos intentos en poco tiempo",
    bot: "Actividad que parece automatizada",
  },
  continue: "Continuar",
  skip: "Omitir por ahora",
  notOwner: "¿No eres el titular de la cuenta?",
  signup: "Crear mi propia cuenta",
  channel: {
    title: "¿Dónde te enviamos el código?",
    all: "Tienes que confirmar cada uno de ellos.",
    email: (to) => `Correo a ${to}`,
    text: (to) => `SMS al ${to}`,
    send: "Enviar código",
  },
  code: {
    title: "Introduce tu código",
    sentTo: (to) => `Hemos enviado un código de 6 dígitos a ${to}. Es válido durante 10 minutos.`,
    label: "Código de 6 dígitos",
    verify: "Verificar",
    attempts: (n) => `${plural(n, "Queda", "Quedan")} ${n} ${plural(n, "intento", "intentos")}`,
    wrong: "Ese código no es correcto.",
    expired: "Este código ha caducado. Pide uno nuevo.",
    resend: "Enviar un código nuevo",
    resendIn: (s) => `Podrás pedir un código nuevo en ${s} s.`,
    resendReady: "Ya puedes pedir un código nuevo.",
    resent: "Te hemos enviado un código nuevo.",
    other: "Usar otro método",
  },
  devices: {
    title: "Cierra la sesión en los dispositivos que no usas",
    status: (n, limit) =>
      `Esta cuenta tiene la sesión iniciada en ${n} ${plural(n, "dispositivo", "dispositivos")}; se ${plural(limit, "permite", "permiten")} ${limit}.`,
    over: (k) => `Cierra la sesión en ${k} ${plural(k, "dispositivo", "dispositivos")} más para continuar.`,
    within: "Estás dentro del límite. Puedes continuar.",
    current: "Este dispositivo",
    seen: (when) => `Visto ${when}`,
    logout: "Cerrar sesión",
    logoutLabel: (what) => `Cerrar sesión en ${what}`,
    kicked: (what) => `Se cerró la sesión en ${what}.`,
    on: (browser, os) => `${browser} en ${os}`,
    unknown: "Desconocido",
    type: { computer: "Ordenador", tablet: "Tableta", mobile: "Teléfono" },
    none: "No hay otros dispositivos con la sesión iniciada.",
  },
  done: {
    completed: "Verificación completada",
    skipped: "Verificación omitida",
    back: (project) => `Volviendo a ${project}…`,
    link: (project) => `Continuar a ${project}`,
    close: "Puedes cerrar esta ventana.",
  },
  problem: {
    expired: [
      "Este enlace ha caducado",
      "Los enlaces de verificación son válidos poco tiempo. Vuelve e inténtalo de nuevo para obtener uno nuevo.",
    ],
    failed: ["La verificación ha fallado", "No hemos podido verificarte. Vuelve e inténtalo de nuevo."],
    too_many_attempts: [
      "Demasiados intentos",
      "Se introdujo un código incorrecto demasiadas veces, así que esta verificación se ha cerrado. Vuelve y empieza de nuevo.",
    ],
    invalid_link: ["Este enlace no es válido", "El enlace está incompleto o se ha modificado. Abre de nuevo el enlace que recibiste."],
    overridden: ["Esta verificación se ha sustituido", "Se inició una verificación más reciente. Usa el enlace más reciente."],
    delivery_failed: ["No hemos podido enviar tu código", "El envío del código ha fallado. Inténtalo de nuevo o elige otro método."],
    error: ["Algo ha salido mal", "Inténtalo de nuevo en un momento."],
  },
  retry: "Reintentar",
  back: (project) => `Volver a ${project}`,
  errors: {
    rateLimited: (s) => `Demasiadas solicitudes. Inténtalo de nuevo en ${s} s.`,
    network: "No hemos podido conectar con el servidor. Comprueba tu conexión e inténtalo de nuevo.",
    overLimit: "Todavía hay más dispositivos de los permitidos.",
    server: (message) => `Respuesta del servidor: ${message}`,
  },
};
