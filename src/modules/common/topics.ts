// What an inquiry is about, when its sender says: the contract's "sales, demo or support inquiry". An
// inquiry without one is general. The topic routes the team's e-mail (MAIL_TO_SALES, ...), is named in
// it, in the webhook, the metrics and `portico inquiries list --topic`, and is offered by the form.
import { GENERAL, TOPICS, type Topic } from '../../ports/inquiry-store.js';
import type { Locale } from './locales.js';

export { GENERAL, TOPICS, type Topic };

export interface TopicWords {
  /** The form's label for the choice. */
  label: string;
  /** The choice of no topic, and the e-mail's word for an inquiry without one. */
  general: string;
  names: Record<Topic, string>;
}

/** Each topic in each locale: the form's choice, and the team's e-mail in the inquiry's language. */
export const TOPIC_WORDS: Record<Locale, TopicWords> = {
  es: { label: 'Motivo', general: 'Consulta general', names: { sales: 'Ventas', demo: 'Demostración', support: 'Soporte' } },
  en: { label: 'Topic', general: 'General inquiry', names: { sales: 'Sales', demo: 'Demo', support: 'Support' } },
  ca: { label: 'Motiu', general: 'Consulta general', names: { sales: 'Vendes', demo: 'Demostració', support: 'Suport' } },
  ru: { label: 'Тема', general: 'Общий вопрос', names: { sales: 'Продажи', demo: 'Демонстрация', support: 'Поддержка' } },
  eu: { label: 'Gaia', general: 'Kontsulta orokorra', names: { sales: 'Salmentak', demo: 'Erakustaldia', support: 'Laguntza' } },
  gl: { label: 'Motivo', general: 'Consulta xeral', names: { sales: 'Vendas', demo: 'Demostración', support: 'Soporte' } },
};
