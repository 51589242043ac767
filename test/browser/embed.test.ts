// <portico-contact-form> on a product site, and the /embed page: every behaviour (test/browser/embed-suite.ts).
import { describeEmbed } from './embed-suite.js';

describeEmbed('everyday', 'test/browser/embed.test.ts');
