// The contact form's words in the six locales (D2), shared by the MCP App and the embeddable element, and the language names its locale picker shows.
import type { Locale } from '../common/locales.js';

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
  /** The consent, with `{policy}` where the policy's name (privacyPolicy) goes: a link when its address is known. */
  privacy: string;
  privacyPolicy: string;
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
  /** The message holds a control character (other than tab and line breaks) that cannot be sent. */
  messageControl: string;
  /** The server refused a field for a reason the page did not foresee. */
  fieldRejected: string;
  summary: string;
  success: string;
  failure: string;
  /** No answer came (the network, or the deadline): the same form may be sent again safely. */
  noAnswer: string;
  /** The human check's widget could not be loaded; it is tried again on the next Send. */
  humanCheckUnavailable: string;
  /** Too many inquiries from here: `{minutes}` is replaced. */
  rateLimited: string;
  /** Stored, but no channel has delivered it yet: it must not be sent again. */
  deliveryPending: string;
  /** The server cannot take inquiries for a moment. */
  unavailable: string;
  /** The host does not let the app call tools. */
  noToolCalls: string;
  /** The human check (Turnstile) refused the visitor's token. */
  humanCheckFailed: string;
  /** The human check has not given its token yet. */
  humanCheckWaiting: string;
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
    privacy: 'He leído y acepto la {policy}.',
    privacyPolicy: 'política de privacidad',
    send: 'Enviar',
    sending: 'Enviando…',
    nameRequired: 'Escribe tu nombre.',
    nameSingleLine: 'El nombre debe ir en una sola línea, sin caracteres de control.',
    emailRequired: 'Escribe tu correo electrónico.',
    emailInvalid: 'Escribe una dirección de correo válida, como nombre@ejemplo.com.',
    messageRequired: 'Escribe tu mensaje.',
    tooLong: 'Como máximo {max} caracteres (ahora hay {count}).',
    privacyRequired: 'Debes aceptar la política de privacidad para enviar el mensaje.',
    messageControl: 'El mensaje contiene caracteres que no se pueden enviar (caracteres de control). Bórralos e inténtalo de nuevo.',
    fieldRejected: 'Este campo no se ha aceptado. Revísalo.',
    summary: 'Revisa los campos marcados.',
    success: '¡Gracias! Tu mensaje se ha enviado. El equipo te responderá por correo electrónico.',
    failure: 'No se ha podido enviar el mensaje. Inténtalo de nuevo más tarde.',
    noAnswer: 'No hemos recibido respuesta, así que puede que el mensaje no se haya enviado. Puedes enviarlo de nuevo sin riesgo de duplicarlo.',
    humanCheckUnavailable: 'No se ha podido cargar la verificación de que eres una persona. Comprueba tu conexión: lo intentaremos de nuevo cuando envíes el mensaje.',
    rateLimited: 'Has enviado varios mensajes en poco tiempo. Vuelve a intentarlo dentro de {minutes} min.',
    deliveryPending: 'Hemos guardado tu mensaje, pero aún no ha llegado al equipo. No hace falta que lo envíes otra vez.',
    unavailable: 'Ahora mismo no podemos recibir mensajes. Inténtalo de nuevo dentro de unos minutos.',
    noToolCalls: 'Esta aplicación no permite enviar el formulario desde aquí. Pide al asistente que envíe tu mensaje o usa el formulario de contacto de nuestra web.',
    humanCheckFailed: 'No se ha podido comprobar que eres una persona. Completa de nuevo la verificación y envía otra vez.',
    humanCheckWaiting: 'Espera a que termine la verificación contra el spam y vuelve a enviar.',
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
    privacy: 'I have read and accept the {policy}.',
    privacyPolicy: 'privacy policy',
    send: 'Send',
    sending: 'Sending…',
    nameRequired: 'Enter your name.',
    nameSingleLine: 'The name must be a single line without control characters.',
    emailRequired: 'Enter your e-mail address.',
    emailInvalid: 'Enter a valid e-mail address, such as name@example.com.',
    messageRequired: 'Write your message.',
    tooLong: 'At most {max} characters ({count} now).',
    privacyRequired: 'You must accept the privacy policy to send the message.',
    messageControl: 'The message contains characters that cannot be sent (control characters). Remove them and try again.',
    fieldRejected: 'This field was not accepted. Please check it.',
    summary: 'Please correct the highlighted fields.',
    success: 'Thank you! Your message has been sent. The team will reply by e-mail.',
    failure: 'The message could not be sent. Please try again later.',
    noAnswer: 'No answer came, so the message may not have been sent. You can send it again safely: it will not arrive twice.',
    humanCheckUnavailable: 'The check that you are a person could not be loaded. Check your connection: it will be tried again when you send.',
    rateLimited: 'You have sent several messages in a short time. Please try again in {minutes} min.',
    deliveryPending: 'Your message is saved, but it has not reached the team yet. There is no need to send it again.',
    unavailable: 'We cannot take messages right now. Please try again in a few minutes.',
    noToolCalls: 'This app does not let the form send from here. Ask the assistant to send your message, or use the contact form on our website.',
    humanCheckFailed: 'We could not confirm that you are a person. Complete the check again and send once more.',
    humanCheckWaiting: 'Wait for the spam check to finish, then send again.',
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
    privacy: 'He llegit i accepto la {policy}.',
    privacyPolicy: 'política de privadesa',
    send: 'Envia',
    sending: "S'està enviant…",
    nameRequired: 'Escriu el teu nom.',
    nameSingleLine: "El nom ha d'ocupar una sola línia, sense caràcters de control.",
    emailRequired: 'Escriu el teu correu electrònic.',
    emailInvalid: 'Escriu una adreça de correu vàlida, com ara nom@exemple.cat.',
    messageRequired: 'Escriu el teu missatge.',
    tooLong: "Com a màxim {max} caràcters (ara n'hi ha {count}).",
    privacyRequired: "Has d'acceptar la política de privadesa per enviar el missatge.",
    messageControl: "El missatge conté caràcters que no es poden enviar (caràcters de control). Esborra'ls i torna-ho a provar.",
    fieldRejected: "Aquest camp no s'ha acceptat. Revisa'l.",
    summary: 'Revisa els camps marcats.',
    success: "Gràcies! El teu missatge s'ha enviat. L'equip et respondrà per correu electrònic.",
    failure: "No s'ha pogut enviar el missatge. Torna-ho a provar més tard.",
    noAnswer: "No hem rebut resposta, així que potser el missatge no s'ha enviat. El pots tornar a enviar sense risc que arribi dues vegades.",
    humanCheckUnavailable: "No s'ha pogut carregar la verificació que ets una persona. Comprova la connexió: ho tornarem a provar quan enviïs el missatge.",
    rateLimited: "Has enviat diversos missatges en poc temps. Torna-ho a provar d'aquí a {minutes} min.",
    deliveryPending: "Hem desat el teu missatge, però encara no ha arribat a l'equip. No cal que el tornis a enviar.",
    unavailable: "Ara mateix no podem rebre missatges. Torna-ho a provar d'aquí a uns minuts.",
    noToolCalls: "Aquesta aplicació no permet enviar el formulari des d'aquí. Demana a l'assistent que enviï el teu missatge o fes servir el formulari de contacte del nostre web.",
    humanCheckFailed: "No s'ha pogut comprovar que ets una persona. Torna a completar la verificació i envia-ho de nou.",
    humanCheckWaiting: 'Espera que acabi la verificació contra el correu brossa i torna a enviar.',
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
    privacy: 'Я прочитал(а) {policy} и принимаю её.',
    privacyPolicy: 'политику конфиденциальности',
    send: 'Отправить',
    sending: 'Отправка…',
    nameRequired: 'Укажите ваше имя.',
    nameSingleLine: 'Имя должно быть в одну строку, без управляющих символов.',
    emailRequired: 'Укажите адрес электронной почты.',
    emailInvalid: 'Укажите правильный адрес электронной почты, например imya@primer.ru.',
    messageRequired: 'Напишите сообщение.',
    tooLong: 'Не более {max} символов (сейчас {count}).',
    privacyRequired: 'Чтобы отправить сообщение, примите политику конфиденциальности.',
    messageControl: 'В сообщении есть символы, которые нельзя отправить (управляющие символы). Удалите их и повторите попытку.',
    fieldRejected: 'Это поле не принято. Проверьте его.',
    summary: 'Исправьте отмеченные поля.',
    success: 'Спасибо! Ваше сообщение отправлено. Команда ответит вам по электронной почте.',
    failure: 'Не удалось отправить сообщение. Повторите попытку позже.',
    noAnswer: 'Ответ не пришёл, поэтому сообщение могло не отправиться. Его можно отправить ещё раз: дважды оно не придёт.',
    humanCheckUnavailable: 'Не удалось загрузить проверку того, что вы человек. Проверьте подключение: мы попробуем ещё раз, когда вы отправите сообщение.',
    rateLimited: 'Вы отправили несколько сообщений за короткое время. Повторите попытку через {minutes} мин.',
    deliveryPending: 'Ваше сообщение сохранено, но ещё не дошло до команды. Отправлять его повторно не нужно.',
    unavailable: 'Сейчас мы не можем принимать сообщения. Повторите попытку через несколько минут.',
    noToolCalls: 'Это приложение не позволяет отправить форму отсюда. Попросите ассистента отправить ваше сообщение или воспользуйтесь формой на нашем сайте.',
    humanCheckFailed: 'Не удалось подтвердить, что вы человек. Пройдите проверку ещё раз и отправьте снова.',
    humanCheckWaiting: 'Дождитесь окончания проверки на спам и отправьте снова.',
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
    privacy: '{policy} irakurri dut eta onartzen dut.',
    privacyPolicy: 'Pribatutasun-politika',
    send: 'Bidali',
    sending: 'Bidaltzen…',
    nameRequired: 'Idatzi zure izena.',
    nameSingleLine: 'Izenak lerro bakarrean egon behar du, kontrol-karaktererik gabe.',
    emailRequired: 'Idatzi zure helbide elektronikoa.',
    emailInvalid: 'Idatzi baliozko helbide elektroniko bat; adibidez, izena@adibidea.eus.',
    messageRequired: 'Idatzi zure mezua.',
    tooLong: 'Gehienez {max} karaktere (orain {count}).',
    privacyRequired: 'Mezua bidaltzeko, pribatutasun-politika onartu behar duzu.',
    messageControl: 'Mezuak bidali ezin diren karaktereak ditu (kontrol-karaktereak). Ezabatu itzazu eta saiatu berriro.',
    fieldRejected: 'Eremu hau ez da onartu. Berrikusi ezazu.',
    summary: 'Zuzendu markatutako eremuak.',
    success: 'Eskerrik asko! Zure mezua bidali da. Taldeak posta elektronikoz erantzungo dizu.',
    failure: 'Ezin izan da mezua bidali. Saiatu berriro geroago.',
    noAnswer: 'Ez da erantzunik iritsi, beraz, baliteke mezua bidali ez izana. Berriro bidal dezakezu arriskurik gabe: ez da bi aldiz iritsiko.',
    humanCheckUnavailable: 'Ezin izan da kargatu pertsona bat zarela egiaztatzeko urratsa. Egiaztatu konexioa: berriro saiatuko gara mezua bidaltzean.',
    rateLimited: 'Mezu batzuk bidali dituzu denbora gutxian. Saiatu berriro {minutes} min barru.',
    deliveryPending: 'Zure mezua gorde dugu, baina oraindik ez da taldera iritsi. Ez duzu berriro bidali behar.',
    unavailable: 'Oraintxe ezin dugu mezurik jaso. Saiatu berriro minutu batzuk barru.',
    noToolCalls: 'Aplikazio honek ez du uzten inprimakia hemendik bidaltzen. Eskatu laguntzaileari zure mezua bidaltzeko, edo erabili gure webguneko harremanetarako inprimakia.',
    humanCheckFailed: 'Ezin izan dugu egiaztatu pertsona bat zarenik. Egin berriro egiaztapena eta bidali berriz.',
    humanCheckWaiting: 'Itxaron spamaren aurkako egiaztapena amaitu arte, eta bidali berriro.',
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
    privacy: 'Lin e acepto a {policy}.',
    privacyPolicy: 'política de privacidade',
    send: 'Enviar',
    sending: 'Enviando…',
    nameRequired: 'Escribe o teu nome.',
    nameSingleLine: 'O nome debe ir nunha soa liña, sen caracteres de control.',
    emailRequired: 'Escribe o teu correo electrónico.',
    emailInvalid: 'Escribe un enderezo de correo válido, como nome@exemplo.gal.',
    messageRequired: 'Escribe a túa mensaxe.',
    tooLong: 'Como máximo {max} caracteres (agora hai {count}).',
    privacyRequired: 'Debes aceptar a política de privacidade para enviar a mensaxe.',
    messageControl: 'A mensaxe contén caracteres que non se poden enviar (caracteres de control). Bórraos e téntao de novo.',
    fieldRejected: 'Este campo non se aceptou. Revísao.',
    summary: 'Revisa os campos marcados.',
    success: 'Grazas! A túa mensaxe enviouse. O equipo responderache por correo electrónico.',
    failure: 'Non se puido enviar a mensaxe. Téntao de novo máis tarde.',
    noAnswer: 'Non chegou resposta, así que pode que a mensaxe non se enviase. Podes enviala de novo sen risco: non chegará dúas veces.',
    humanCheckUnavailable: 'Non se puido cargar a comprobación de que es unha persoa. Comproba a conexión: tentarémolo de novo cando envíes a mensaxe.',
    rateLimited: 'Enviaches varias mensaxes en pouco tempo. Téntao de novo dentro de {minutes} min.',
    deliveryPending: 'Gardamos a túa mensaxe, pero aínda non chegou ao equipo. Non fai falta que a envíes outra vez.',
    unavailable: 'Agora mesmo non podemos recibir mensaxes. Téntao de novo dentro duns minutos.',
    noToolCalls: 'Esta aplicación non permite enviar o formulario desde aquí. Pídelle ao asistente que envíe a túa mensaxe ou usa o formulario de contacto da nosa web.',
    humanCheckFailed: 'Non puidemos comprobar que es unha persoa. Completa de novo a verificación e envía outra vez.',
    humanCheckWaiting: 'Agarda a que remate a verificación contra o spam e volve enviar.',
  },
};
