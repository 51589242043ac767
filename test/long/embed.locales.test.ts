// <portico-contact-form> on a product site: the locales the everyday run leaves out (test/browser/embed-suite.ts).
import { describeEmbed } from '../browser/embed-suite.js';

describeEmbed('locales', 'test/long/embed.locales.test.ts');
