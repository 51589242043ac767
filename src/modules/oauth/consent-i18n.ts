// The consent and error pages' words in the six locales, and choosing one (ui_locales, Accept-Language).
import { LOCALES, type Locale } from '../common/locales.js';
import type { Scope } from './scopes.js';

export interface PageWords {
  title: string;
  intro: string;
  returnTo: string;
  trust: string;
  approve: string;
  deny: string;
  unnamed: string;
  scopes: Record<Scope, string>;
  errorTitle: string;
  unknownClient: string;
  badRedirect: string;
  consentUsed: string;
  crossSite: string;
  /** D13: the host that publishes the client's metadata document, shown before anything else. */
  identifiedBy: string;
  /** D13: every redirect URI is loopback: the document's host cannot vouch for what listens there. */
  loopbackOnly: string;
  badMetadata: string;
}

export const WORDS: Record<Locale, PageWords> = {
  es: {
    title: 'Autorizar acceso',
    intro: '{client} solicita permiso para:',
    returnTo: 'Elijas lo que elijas, volverás a {host}.',
    trust: 'Permite solo aplicaciones de confianza.',
    approve: 'Permitir',
    deny: 'Denegar',
    unnamed: 'Una aplicación sin nombre',
    scopes: {
      'contact:write': 'Enviar consultas a nuestro equipo',
      'mcp:invoke': 'Usar las herramientas de nuestro servidor MCP',
      'docs:read': 'Leer la documentación pública, los precios y los documentos de descubrimiento',
    },
    errorTitle: 'No se puede completar esta solicitud',
    unknownClient: 'La aplicación no está registrada.',
    badRedirect: 'La dirección de retorno no es una de las registradas por la aplicación; por tu seguridad no te enviamos allí.',
    consentUsed: 'Esta página de consentimiento ha caducado o ya se usó. Vuelve a empezar desde la aplicación.',
    crossSite: 'La decisión no procede de esta página.',
    identifiedBy: 'Esta aplicación se identifica mediante {host}, que publica sus datos.',
    loopbackOnly: 'Volverás a una aplicación de este dispositivo (localhost), de la que {host} no puede responder: continúa solo si acabas de iniciar la conexión desde una aplicación de este equipo.',
    badMetadata: 'No se ha podido usar el documento de metadatos de la aplicación; la solicitud se detiene aquí.',
  },
  en: {
    title: 'Authorize access',
    intro: '{client} asks for permission to:',
    returnTo: 'Whatever you choose, you will be sent back to {host}.',
    trust: 'Only allow applications you trust.',
    approve: 'Allow',
    deny: 'Deny',
    unnamed: 'An unnamed application',
    scopes: { 'contact:write': 'Send inquiries to our team', 'mcp:invoke': 'Use the tools of our MCP server', 'docs:read': 'Read public documentation, pricing and discovery documents' },
    errorTitle: 'This request cannot be completed',
    unknownClient: 'The application is not registered.',
    badRedirect: 'The return address is not one the application registered; for your safety you are not sent there.',
    consentUsed: 'This consent page has expired or was already used. Start again from the application.',
    crossSite: 'The decision did not come from this page.',
    identifiedBy: 'This application is identified by {host}, which publishes its details.',
    loopbackOnly:
      'You will be sent back to an application on this device (localhost), which {host} cannot vouch for: continue only if you have just started the connection from an application on this computer.',
    badMetadata: "The application's metadata document could not be used, so the request stops here.",
  },
  ca: {
    title: "Autoritzar l'accés",
    intro: '{client} demana permís per a:',
    returnTo: 'Triïs el que triïs, tornaràs a {host}.',
    trust: 'Permet només aplicacions de confiança.',
    approve: 'Permetre',
    deny: 'Denegar',
    unnamed: 'Una aplicació sense nom',
    scopes: {
      'contact:write': 'Enviar consultes al nostre equip',
      'mcp:invoke': 'Utilitzar les eines del nostre servidor MCP',
      'docs:read': 'Llegir la documentació pública, els preus i els documents de descobriment',
    },
    errorTitle: 'Aquesta sol·licitud no es pot completar',
    unknownClient: "L'aplicació no està registrada.",
    badRedirect: "L'adreça de retorn no és cap de les registrades per l'aplicació; per la teva seguretat no t'hi enviem.",
    consentUsed: "Aquesta pàgina de consentiment ha caducat o ja s'ha fet servir. Torna a començar des de l'aplicació.",
    crossSite: "La decisió no prové d'aquesta pàgina.",
    identifiedBy: "Aquesta aplicació s'identifica mitjançant {host}, que en publica les dades.",
    loopbackOnly: "Tornaràs a una aplicació d'aquest dispositiu (localhost), de la qual {host} no pot respondre: continua només si acabes d'iniciar la connexió des d'una aplicació d'aquest equip.",
    badMetadata: "No s'ha pogut fer servir el document de metadades de l'aplicació; la sol·licitud s'atura aquí.",
  },
  ru: {
    title: 'Разрешение доступа',
    intro: '{client} запрашивает разрешение:',
    returnTo: 'Что бы вы ни выбрали, вы вернётесь на {host}.',
    trust: 'Разрешайте доступ только приложениям, которым доверяете.',
    approve: 'Разрешить',
    deny: 'Отклонить',
    unnamed: 'Приложение без названия',
    scopes: {
      'contact:write': 'Отправлять запросы нашей команде',
      'mcp:invoke': 'Использовать инструменты нашего MCP-сервера',
      'docs:read': 'Читать публичную документацию, цены и документы обнаружения',
    },
    errorTitle: 'Этот запрос невозможно выполнить',
    unknownClient: 'Приложение не зарегистрировано.',
    badRedirect: 'Адрес возврата не входит в зарегистрированные приложением; ради вашей безопасности мы вас туда не перенаправляем.',
    consentUsed: 'Срок действия этой страницы согласия истёк или она уже использована. Начните заново в приложении.',
    crossSite: 'Решение отправлено не с этой страницы.',
    identifiedBy: 'Это приложение идентифицируется через {host}, где опубликованы его данные.',
    loopbackOnly:
      'Вы вернётесь в приложение на этом устройстве (localhost), за которое {host} поручиться не может: продолжайте, только если вы сами только что начали подключение из приложения на этом компьютере.',
    badMetadata: 'Не удалось использовать документ метаданных приложения, поэтому запрос остановлен.',
  },
  eu: {
    title: 'Sarbidea baimendu',
    intro: '{client} aplikazioak baimena eskatzen du honetarako:',
    returnTo: 'Aukeratzen duzuna aukeratzen duzula, {host} helbidera itzuliko zara.',
    trust: 'Baimendu soilik konfiantzazko aplikazioak.',
    approve: 'Baimendu',
    deny: 'Ukatu',
    unnamed: 'Izenik gabeko aplikazio bat',
    scopes: {
      'contact:write': 'Gure taldeari kontsultak bidali',
      'mcp:invoke': 'Gure MCP zerbitzariaren tresnak erabili',
      'docs:read': 'Dokumentazio publikoa, prezioak eta aurkikuntza-dokumentuak irakurri',
    },
    errorTitle: 'Ezin da eskaera hau osatu',
    unknownClient: 'Aplikazioa ez dago erregistratuta.',
    badRedirect: 'Itzulera-helbidea ez da aplikazioak erregistratutakoetako bat; zure segurtasunerako ez zaitugu hara bidaltzen.',
    consentUsed: 'Baimen-orri hau iraungi da edo dagoeneko erabili da. Hasi berriro aplikaziotik.',
    crossSite: 'Erabakia ez dator orri honetatik.',
    identifiedBy: 'Aplikazio hau {host} bidez identifikatzen da, eta han argitaratzen ditu bere datuak.',
    loopbackOnly: 'Gailu honetako aplikazio batera itzuliko zara (localhost), eta {host} ezin da hartaz arduratu: jarraitu soilik konexioa ordenagailu honetako aplikazio batetik hasi berri baduzu.',
    badMetadata: 'Ezin izan da aplikazioaren metadatu-dokumentua erabili; beraz, eskaera hemen gelditzen da.',
  },
  gl: {
    title: 'Autorizar o acceso',
    intro: '{client} solicita permiso para:',
    returnTo: 'Escollas o que escollas, volverás a {host}.',
    trust: 'Permite só aplicacións de confianza.',
    approve: 'Permitir',
    deny: 'Denegar',
    unnamed: 'Unha aplicación sen nome',
    scopes: {
      'contact:write': 'Enviar consultas ao noso equipo',
      'mcp:invoke': 'Usar as ferramentas do noso servidor MCP',
      'docs:read': 'Ler a documentación pública, os prezos e os documentos de descubrimento',
    },
    errorTitle: 'Non se pode completar esta solicitude',
    unknownClient: 'A aplicación non está rexistrada.',
    badRedirect: 'O enderezo de retorno non é un dos rexistrados pola aplicación; pola túa seguridade non te enviamos alí.',
    consentUsed: 'Esta páxina de consentimento caducou ou xa se usou. Comeza de novo desde a aplicación.',
    crossSite: 'A decisión non procede desta páxina.',
    identifiedBy: 'Esta aplicación identifícase mediante {host}, que publica os seus datos.',
    loopbackOnly: 'Volverás a unha aplicación deste dispositivo (localhost), da que {host} non pode responder: continúa só se acabas de iniciar a conexión desde unha aplicación deste equipo.',
    badMetadata: 'Non se puido usar o documento de metadatos da aplicación, así que a solicitude detense aquí.',
  },
};

const DEFAULT_LOCALE: Locale = 'es';

/** OpenID-style `ui_locales` first (space-separated, in order), then Accept-Language by weight. */
export function chooseLocale(uiLocales: unknown, acceptLanguage: string | undefined): Locale {
  const supported = (tag: string) => LOCALES.find((locale) => locale === tag.trim().toLowerCase().split('-')[0]);
  if (typeof uiLocales === 'string') {
    for (const tag of uiLocales.split(' ')) {
      const found = supported(tag);
      if (found) return found;
    }
  }
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag, q: q === undefined ? 1 : Number(q) };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    const found = supported(tag);
    if (found) return found;
  }
  return DEFAULT_LOCALE;
}
