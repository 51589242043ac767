// The contact-form app's words in the six locales (D2), and the language names its locale picker shows.
import type { Locale } from '../../contact/schema.js';

export interface FormWords {
  title: string;
  intro: string;
  allRequired: string;
  name: string;
  namePlaceholder: string;
  email: string;
  emailPlaceholder: string;
  message: string;
  messagePlaceholder: string;
  locale: string;
  privacy: string;
  send: string;
  sending: string;
  nameRequired: string;
  nameSingleLine: string;
  emailRequired: string;
  emailInvalid: string;
  messageRequired: string;
  /** `{max}` and `{count}` are replaced in the page. */
  tooLong: string;
  privacyRequired: string;
  summary: string;
  success: string;
  failure: string;
}

/** Each language named in itself, so a reader finds theirs whatever the page's language is. */
export const LANGUAGE_NAMES: Record<Locale, string> = {
  es: 'Español',
  en: 'English',
  ca: 'Català',
  ru: 'Русский',
  eu: 'Euskara',
  gl: 'Galego',
};

export const FORM_WORDS: Record<Locale, FormWords> = {
  es: {
    title: 'Contacta con nosotros',
    intro: 'Cuéntanos qué necesitas y el equipo te responderá por correo electrónico.',
    allRequired: 'Todos los campos son obligatorios.',
    name: 'Nombre',
    namePlaceholder: 'Tu nombre y apellidos',
    email: 'Correo electrónico',
    emailPlaceholder: 'nombre@ejemplo.com',
    message: 'Mensaje',
    messagePlaceholder: '¿En qué podemos ayudarte?',
    locale: 'Idioma de la respuesta',
    privacy: 'He leído y acepto la política de privacidad.',
    send: 'Enviar',
    sending: 'Enviando…',
    nameRequired: 'Escribe tu nombre.',
    nameSingleLine: 'El nombre debe ir en una sola línea, sin caracteres de control.',
    emailRequired: 'Escribe tu correo electrónico.',
    emailInvalid: 'Escribe una dirección de correo válida, como nombre@ejemplo.com.',
    messageRequired: 'Escribe tu mensaje.',
    tooLong: 'Como máximo {max} caracteres (ahora hay {count}).',
    privacyRequired: 'Debes aceptar la política de privacidad para enviar el mensaje.',
    summary: 'Revisa los campos marcados.',
    success: '¡Gracias! Tu mensaje se ha enviado. El equipo te responderá por correo electrónico.',
    failure: 'No se ha podido enviar el mensaje. Inténtalo de nuevo más tarde.',
  },
  en: {
    title: 'Contact us',
    intro: 'Tell us what you need and the team will reply by e-mail.',
    allRequired: 'All fields are required.',
    name: 'Name',
    namePlaceholder: 'Your full name',
    email: 'E-mail',
    emailPlaceholder: 'name@example.com',
    message: 'Message',
    messagePlaceholder: 'How can we help?',
    locale: 'Language for the reply',
    privacy: 'I have read and accept the privacy policy.',
    send: 'Send',
    sending: 'Sending…',
    nameRequired: 'Enter your name.',
    nameSingleLine: 'The name must be a single line without control characters.',
    emailRequired: 'Enter your e-mail address.',
    emailInvalid: 'Enter a valid e-mail address, such as name@example.com.',
    messageRequired: 'Write your message.',
    tooLong: 'At most {max} characters ({count} now).',
    privacyRequired: 'You must accept the privacy policy to send the message.',
    summary: 'Please correct the highlighted fields.',
    success: 'Thank you! Your message has been sent. The team will reply by e-mail.',
    failure: 'The message could not be sent. Please try again later.',
  },
  ca: {
    title: 'Contacta amb nosaltres',
    intro: "Explica'ns què necessites i l'equip et respondrà per correu electrònic.",
    allRequired: 'Tots els camps són obligatoris.',
    name: 'Nom',
    namePlaceholder: 'El teu nom i cognoms',
    email: 'Correu electrònic',
    emailPlaceholder: 'nom@exemple.cat',
    message: 'Missatge',
    messagePlaceholder: 'Com et podem ajudar?',
    locale: 'Idioma de la resposta',
    privacy: 'He llegit i accepto la política de privadesa.',
    send: 'Envia',
    sending: "S'està enviant…",
    nameRequired: 'Escriu el teu nom.',
    nameSingleLine: "El nom ha d'ocupar una sola línia, sense caràcters de control.",
    emailRequired: 'Escriu el teu correu electrònic.',
    emailInvalid: 'Escriu una adreça de correu vàlida, com ara nom@exemple.cat.',
    messageRequired: 'Escriu el teu missatge.',
    tooLong: "Com a màxim {max} caràcters (ara n'hi ha {count}).",
    privacyRequired: "Has d'acceptar la política de privadesa per enviar el missatge.",
    summary: 'Revisa els camps marcats.',
    success: "Gràcies! El teu missatge s'ha enviat. L'equip et respondrà per correu electrònic.",
    failure: "No s'ha pogut enviar el missatge. Torna-ho a provar més tard.",
  },
  ru: {
    title: 'Свяжитесь с нами',
    intro: 'Расскажите, что вам нужно, и наша команда ответит вам по электронной почте.',
    allRequired: 'Все поля обязательны для заполнения.',
    name: 'Имя',
    namePlaceholder: 'Ваши имя и фамилия',
    email: 'Электронная почта',
    emailPlaceholder: 'imya@primer.ru',
    message: 'Сообщение',
    messagePlaceholder: 'Чем мы можем помочь?',
    locale: 'Язык ответа',
    privacy: 'Я прочитал(а) политику конфиденциальности и принимаю её.',
    send: 'Отправить',
    sending: 'Отправка…',
    nameRequired: 'Укажите ваше имя.',
    nameSingleLine: 'Имя должно быть в одну строку, без управляющих символов.',
    emailRequired: 'Укажите адрес электронной почты.',
    emailInvalid: 'Укажите правильный адрес электронной почты, например imya@primer.ru.',
    messageRequired: 'Напишите сообщение.',
    tooLong: 'Не более {max} символов (сейчас {count}).',
    privacyRequired: 'Чтобы отправить сообщение, примите политику конфиденциальности.',
    summary: 'Исправьте отмеченные поля.',
    success: 'Спасибо! Ваше сообщение отправлено. Команда ответит вам по электронной почте.',
    failure: 'Не удалось отправить сообщение. Повторите попытку позже.',
  },
  eu: {
    title: 'Jarri gurekin harremanetan',
    intro: 'Kontatu zer behar duzun, eta taldeak posta elektronikoz erantzungo dizu.',
    allRequired: 'Eremu guztiak derrigorrezkoak dira.',
    name: 'Izena',
    namePlaceholder: 'Zure izen-abizenak',
    email: 'Posta elektronikoa',
    emailPlaceholder: 'izena@adibidea.eus',
    message: 'Mezua',
    messagePlaceholder: 'Zertan lagun zaitzakegu?',
    locale: 'Erantzunaren hizkuntza',
    privacy: 'Pribatutasun-politika irakurri dut eta onartzen dut.',
    send: 'Bidali',
    sending: 'Bidaltzen…',
    nameRequired: 'Idatzi zure izena.',
    nameSingleLine: 'Izenak lerro bakarrean egon behar du, kontrol-karaktererik gabe.',
    emailRequired: 'Idatzi zure helbide elektronikoa.',
    emailInvalid: 'Idatzi baliozko helbide elektroniko bat; adibidez, izena@adibidea.eus.',
    messageRequired: 'Idatzi zure mezua.',
    tooLong: 'Gehienez {max} karaktere (orain {count}).',
    privacyRequired: 'Mezua bidaltzeko, pribatutasun-politika onartu behar duzu.',
    summary: 'Zuzendu markatutako eremuak.',
    success: 'Eskerrik asko! Zure mezua bidali da. Taldeak posta elektronikoz erantzungo dizu.',
    failure: 'Ezin izan da mezua bidali. Saiatu berriro geroago.',
  },
  gl: {
    title: 'Contacta connosco',
    intro: 'Cóntanos que necesitas e o equipo responderache por correo electrónico.',
    allRequired: 'Todos os campos son obrigatorios.',
    name: 'Nome',
    namePlaceholder: 'O teu nome e apelidos',
    email: 'Correo electrónico',
    emailPlaceholder: 'nome@exemplo.gal',
    message: 'Mensaxe',
    messagePlaceholder: 'En que podemos axudarche?',
    locale: 'Idioma da resposta',
    privacy: 'Lin e acepto a política de privacidade.',
    send: 'Enviar',
    sending: 'Enviando…',
    nameRequired: 'Escribe o teu nome.',
    nameSingleLine: 'O nome debe ir nunha soa liña, sen caracteres de control.',
    emailRequired: 'Escribe o teu correo electrónico.',
    emailInvalid: 'Escribe un enderezo de correo válido, como nome@exemplo.gal.',
    messageRequired: 'Escribe a túa mensaxe.',
    tooLong: 'Como máximo {max} caracteres (agora hai {count}).',
    privacyRequired: 'Debes aceptar a política de privacidade para enviar a mensaxe.',
    summary: 'Revisa os campos marcados.',
    success: 'Grazas! A túa mensaxe enviouse. O equipo responderache por correo electrónico.',
    failure: 'Non se puido enviar a mensaxe. Téntao de novo máis tarde.',
  },
};
