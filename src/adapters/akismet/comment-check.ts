// Akismet's comment-check (https://akismet.com/developers/detailed-docs/comment-check/): is this inquiry spam?
import { SpamCheckUnavailable, type SpamCheck } from '../../ports/spam-check.js';
import { formPoster } from '../form-poster.js';

export interface AkismetOptions {
  key: string;
  /** The API's base address (AKISMET_URL): https://rest.akismet.com, or a server that speaks its protocol. */
  url: string;
  /** The site the inquiries are sent to: Akismet's `blog`, the key's registered site. */
  site: string;
  /** Outside production, queries say `is_test`, so that they do not teach Akismet's filter. */
  test: boolean;
  timeoutMs: number;
}

// The answer is a word and a few headers.
const MAX_ANSWER_BYTES = 4 * 1024;

/**
 * A SpamCheck over Akismet: `true` is spam, `false` is not; anything else (`invalid` for a bad key, an error
 * status, no answer in time) is no verdict, thrown as SpamCheckUnavailable with Akismet's debug help.
 */
export function akismetSpamCheck(options: AkismetOptions): SpamCheck {
  const poster = formPoster(new URL(`${options.url}/1.1/comment-check`), MAX_ANSWER_BYTES);
  return {
    close: poster.close,
    async isSpam(inquiry) {
      const form: Record<string, string> = {
        api_key: options.key,
        blog: options.site,
        user_ip: inquiry.remoteIp,
        // Akismet's own term: a form's message is a "contact-form" comment.
        comment_type: 'contact-form',
        comment_author: inquiry.name,
        comment_author_email: inquiry.email,
        comment_content: inquiry.message,
        blog_lang: inquiry.locale,
        blog_charset: 'UTF-8',
      };
      if (inquiry.userAgent !== undefined) form.user_agent = inquiry.userAgent;
      if (inquiry.referrer !== undefined) form.referrer = inquiry.referrer;
      if (options.test) form.is_test = '1';
      let answer;
      try {
        answer = await poster.post(form, AbortSignal.timeout(options.timeoutMs));
      } catch (error) {
        throw new SpamCheckUnavailable(`Akismet: no whole answer: ${(error as Error).name}: ${(error as Error).message}`);
      }
      const verdict = answer.text.trim();
      if (answer.status === 200 && (verdict === 'true' || verdict === 'false')) return verdict === 'true';
      const help = answer.headers['x-akismet-debug-help'] ?? answer.headers['x-akismet-error'];
      throw new SpamCheckUnavailable(`Akismet answered HTTP ${answer.status} "${verdict.slice(0, 100)}"${help ? ` (${String(help)})` : ''}`);
    },
  };
}
