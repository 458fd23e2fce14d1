// French messages (same keys as en.ts).
import type { Messages } from "./en.js";

const plural = (n: number, one: string, other: string) => (n <= 1 ? one : other);

export const fr: Messages = {
  dir: "ltr",
  language: "Langue",
  pageTitle: (project) => `Vérification · ${project}`,
  loading: "Chargement…",
  intro: {
    account_takeover: [
      "Confirmez que c’est bien vous",
      "Nous avons remarqué une connexion inhabituelle à votre compte. Pour le protéger, confirmez que c’est bien vous avec un code à usage unique.",
    ],
    account_sharing: [
      "Trop d’appareils sur ce compte",
      "Ce compte est utilisé sur plus d’appareils qu’autorisé. Le titulaire du compte peut confirmer avec un code à usage unique et déconnecter les appareils qu’il n’utilise pas.",
    ],
    repeat_trial: [
      "Confirmez vos coordonnées",
      "Cet appareil a déjà servi pour un essai. Confirmez vos coordonnées avec un code à usage unique pour continuer.",
    ],
    multi_accounting: [
      "Confirmez que c’est bien vous",
      "Cet appareil est lié à d’autres comptes. Confirmez vos coordonnées avec un code à usage unique pour continuer.",
    ],
    fake_account: [
      "Confirmez vos coordonnées",
      "Pour protéger ce service des faux comptes, confirmez votre e-mail ou votre téléphone avec un code à usage unique.",
    ],
    default: ["Confirmez que c’est bien vous", "Pour votre sécurité, confirmez que c’est bien vous avec un code à usage unique."],
  },
  limit: (n) => `${n} ${plural(n, "appareil autorisé", "appareils autorisés")} au maximum par compte.`,
  noticed: "Ce que nous avons remarqué",
  reasons: {
    new_ip: "Une connexion depuis un nouveau réseau",
    new_device: "Une connexion depuis un nouvel appareil ou navigateur",
    impossible_travel: "Des connexions depuis des lieux trop éloignés en peu de temps",
    anonymous: "Une connexion via un VPN, un proxy ou Tor",
    devices: "Plus d’appareils qu’autorisé",
    shared: "Un appareil partagé par plusieurs comptes",
    velocity: "De nombreuses tentatives en peu de temps",
    bot: "Une activité qui semble automatisée",
  },
  continue: "Continuer",
  skip: "Passer pour l’instant",
  notOwner: "Vous n’êtes pas le titulaire du compte ?",
  signup: "Créer mon propre compte",
  channel: {
    title: "Où devons-nous envoyer votre code ?",
    all: "Vous devez confirmer chacun de ces moyens.",
    email: (to) => `E-mail à ${to}`,
    text: (to) => `SMS au ${to}`,
    send: "Envoyer le code",
  },
  code: {
    title: "Saisissez votre code",
    sentTo: (to) => `Nous avons envoyé un code à 6 chiffres à ${to}. Il est valable 10 minutes.`,
    label: "Code à 6 chiffres",
    verify: "Vérifier",
    attempts: (n) => `${n} ${plural(n, "essai restant", "essais restants")}`,
    wrong: "Ce code n’est pas le bon.",
    expired: "Ce code a expiré. Demandez-en un nouveau.",
    resend: "Envoyer un nouveau code",
    resendIn: (s) => `Vous pourrez demander un nouveau code dans ${s} s.`,
    resendReady: "Vous pouvez demander un nouveau code.",
    resent: "Un nouveau code est en route.",
    other: "Utiliser un autre moyen",
  },
  devices: {
    title: "Déconnectez les appareils que vous n’utilisez pas",
    status: (n, limit) =>
      `Ce compte est connecté sur ${n} ${plural(n, "appareil", "appareils")} ; ${limit} ${plural(limit, "est autorisé", "sont autorisés")}.`,
    over: (k) => `Déconnectez encore ${k} ${plural(k, "appareil", "appareils")} pour continuer.`,
    within: "Vous êtes dans la limite. Vous pouvez continuer.",
    current: "Cet appareil",
    seen: (when) => `Vu ${when}`,
    logout: "Déconnecter",
    logoutLabel: (what) => `Déconnecter ${what}`,
    kicked: (what) => `${what} a été déconnecté.`,
    on: (browser, os) => `${browser} sur ${os}`,
    unknown: "Inconnu",
    type: { computer: "Ordinateur", tablet: "Tablette", mobile: "Téléphone" },
    none: "Aucun autre appareil n’est connecté.",
  },
  done: {
    completed: "Vous êtes vérifié",
    skipped: "Vérification passée",
    back: (project) => `Retour vers ${project}…`,
    link: (project) => `Continuer vers ${project}`,
    close: "Vous pouvez fermer cette fenêtre.",
  },
  problem: {
    expired: [
      "Ce lien a expiré",
      "Les liens de vérification sont valables peu de temps. Revenez en arrière et réessayez pour en obtenir un nouveau.",
    ],
    failed: ["La vérification a échoué", "Nous n’avons pas pu vous vérifier. Revenez en arrière et réessayez."],
    too_many_attempts: [
      "Trop de tentatives",
      "Un code erroné a été saisi trop de fois : cette vérification est close. Revenez en arrière et recommencez.",
    ],
    invalid_link: ["Ce lien n’est pas valide", "Le lien est incomplet ou a été modifié. Ouvrez à nouveau le lien reçu."],
    overridden: ["Cette vérification a été remplacée", "Une vérification plus récente a été lancée. Utilisez le lien le plus récent."],
    delivery_failed: ["Nous n’avons pas pu envoyer votre code", "L’envoi du code a échoué. Réessayez ou choisissez un autre moyen."],
    error: ["Une erreur est survenue", "Veuillez réessayer dans un instant."],
  },
  retry: "Réessayer",
  back: (project) => `Retour à ${project}`,
  errors: {
    rateLimited: (s) => `Trop de demandes. Réessayez dans ${s} s.`,
    network: "Impossible de joindre le serveur. Vérifiez votre connexion et réessayez.",
    overLimit: "Il y a encore plus d’appareils qu’autorisé.",
    server: (message) => `Réponse du serveur : ${message}`,
  },
};
