// The words of the e-mails Portico writes, in each of the six locales an inquiry can carry.
import type { Inquiry } from '../../ports/inquiry-store.js';
import type { Locale } from '../common/locales.js';

export interface TeamEmailWords {
  subject: (name: string) => string;
  name: string;
  email: string;
  language: string;
  channel: string;
  received: string;
  inquiry: string;
  channels: Record<Inquiry['channel'], string>;
  client: string;
  /** Before the subject of an inquiry screening gave reasons (D20). */
  possibleSpam: string;
  /** The label of the line that names those reasons. */
  spamReasons: string;
}

export const TEAM_EMAIL: Record<Locale, TeamEmailWords> = {
  es: {
    subject: (name) => `Nueva consulta de ${name}`,
    name: 'Nombre',
    email: 'Correo electrónico',
    language: 'Idioma',
    channel: 'Canal',
    received: 'Recibida',
    inquiry: 'Consulta',
    channels: { web: 'formulario web', api: 'API', mcp: 'MCP' },
    client: 'cliente',
    possibleSpam: '[Posible spam]',
    spamReasons: 'Motivos de sospecha',
  },
  en: {
    subject: (name) => `New inquiry from ${name}`,
    name: 'Name',
    email: 'E-mail',
    language: 'Language',
    channel: 'Channel',
    received: 'Received',
    inquiry: 'Inquiry',
    channels: { web: 'web form', api: 'API', mcp: 'MCP' },
    client: 'client',
    possibleSpam: '[Possible spam]',
    spamReasons: 'Spam reasons',
  },
  ca: {
    subject: (name) => `Nova consulta de ${name}`,
    name: 'Nom',
    email: 'Correu electrònic',
    language: 'Idioma',
    channel: 'Canal',
    received: 'Rebuda',
    inquiry: 'Consulta',
    channels: { web: 'formulari web', api: 'API', mcp: 'MCP' },
    client: 'client',
    possibleSpam: '[Possible correu brossa]',
    spamReasons: 'Motius de sospita',
  },
  ru: {
    subject: (name) => `Новый запрос от ${name}`,
    name: 'Имя',
    email: 'Электронная почта',
    language: 'Язык',
    channel: 'Канал',
    received: 'Получено',
    inquiry: 'Запрос',
    channels: { web: 'веб-форма', api: 'API', mcp: 'MCP' },
    client: 'клиент',
    possibleSpam: '[Возможно, спам]',
    spamReasons: 'Признаки спама',
  },
  eu: {
    subject: (name) => `Kontsulta berria: ${name}`,
    name: 'Izena',
    email: 'Helbide elektronikoa',
    language: 'Hizkuntza',
    channel: 'Kanala',
    received: 'Jasoa',
    inquiry: 'Kontsulta',
    channels: { web: 'web formularioa', api: 'APIa', mcp: 'MCP' },
    client: 'bezeroa',
    possibleSpam: '[Spam izan daiteke]',
    spamReasons: 'Susmo-arrazoiak',
  },
  gl: {
    subject: (name) => `Nova consulta de ${name}`,
    name: 'Nome',
    email: 'Correo electrónico',
    language: 'Idioma',
    channel: 'Canle',
    received: 'Recibida',
    inquiry: 'Consulta',
    channels: { web: 'formulario web', api: 'API', mcp: 'MCP' },
    client: 'cliente',
    possibleSpam: '[Posible spam]',
    spamReasons: 'Motivos de sospeita',
  },
};

export interface AcknowledgementWords {
  subject: string;
  body: (name: string, team: string) => string;
}

/** The short note a submitter may get (MAIL_ACKNOWLEDGE): it repeats nothing they wrote but their name. */
export const ACKNOWLEDGEMENT: Record<Locale, AcknowledgementWords> = {
  es: {
    subject: 'Hemos recibido tu consulta',
    body: (name, team) => `Hola, ${name}:\n\nHemos recibido tu consulta y te responderemos pronto.\n\n${team}\n`,
  },
  en: {
    subject: 'We have received your inquiry',
    body: (name, team) => `Hello ${name},\n\nWe have received your inquiry and will reply soon.\n\n${team}\n`,
  },
  ca: {
    subject: 'Hem rebut la teva consulta',
    body: (name, team) => `Hola, ${name}:\n\nHem rebut la teva consulta i et respondrem aviat.\n\n${team}\n`,
  },
  ru: {
    subject: 'Мы получили ваш запрос',
    body: (name, team) => `Здравствуйте, ${name}!\n\nМы получили ваш запрос и скоро ответим.\n\n${team}\n`,
  },
  eu: {
    subject: 'Zure kontsulta jaso dugu',
    body: (name, team) => `Kaixo, ${name}:\n\nZure kontsulta jaso dugu eta laster erantzungo dizugu.\n\n${team}\n`,
  },
  gl: {
    subject: 'Recibimos a túa consulta',
    body: (name, team) => `Ola, ${name}:\n\nRecibimos a túa consulta e responderémosche pronto.\n\n${team}\n`,
  },
};
