// What a visitor sees of the contact form's colours, read from the page as rendered: the contrast of its
// text and focus ring (WCAG 2.2 1.4.3 and 1.4.11), and the ring each invalid field shows under keyboard focus.
import type { Locator, Page } from 'playwright-core';

export const FIELDS = ['name', 'email', 'message', 'privacy'];

type Rgb = [number, number, number];

const rgb = (css: string): Rgb => {
  const [r, g, b] = (/rgba?\(([^)]+)\)/.exec(css)?.[1] ?? '0,0,0').split(/[\s,/]+/).map(Number);
  return [r!, g!, b!];
};
const luminance = ([r, g, b]: Rgb) => {
  const f = (v: number) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
};
/** The WCAG contrast ratio of two CSS colours. */
export const contrast = (a: string, b: string) => {
  const [x, y] = [luminance(rgb(a)), luminance(rgb(b))];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
};

/** Each control's border against the form's own background (WCAG 2.2 1.4.11), by the control's id. */
export async function boundaryRatios(form: Locator, ids = ['name', 'email', 'topic', 'message', 'locale']): Promise<Record<string, number>> {
  const read = await form.evaluate((host, controls) => {
    const view = host.ownerDocument.defaultView!;
    const inside = host.shadowRoot ?? host;
    // The form's own background: the page around it is the site's or the host's.
    const pf = host.matches('.pf') ? host : inside.querySelector('.pf')!;
    return { background: view.getComputedStyle(pf).backgroundColor, borders: controls.map((id) => view.getComputedStyle(inside.querySelector(`#${id}`)!).borderTopColor) };
  }, ids);
  return Object.fromEntries(ids.map((id, i) => [id, contrast(read.borders[i]!, read.background)]));
}

/** The contrast of the intro text and of the button's text, and of the focus ring, against what is behind them. */
export async function contrastOf(form: Locator): Promise<{ intro: number; button: number; focus: number }> {
  const read = await form.evaluate((host) => {
    const view = host.ownerDocument.defaultView!;
    const inside = host.shadowRoot ?? host;
    const style = (selector: string) => view.getComputedStyle(inside.querySelector(selector)!);
    // The element's form is inside its shadow root; the MCP App's container is the form's root itself.
    const pf = view.getComputedStyle(host.matches('.pf') ? host : inside.querySelector('.pf')!);
    return {
      page: pf.backgroundColor,
      intro: style('#intro').color,
      button: [style('#send').color, style('#send').backgroundColor],
      ring: pf.getPropertyValue('--focus-ring') || pf.getPropertyValue('--color-ring-primary'),
    };
  });
  return { intro: contrast(read.intro, read.page), button: contrast(read.button[0]!, read.button[1]!), focus: contrast(read.ring, read.page) };
}

export interface Ring {
  style: string;
  color: string;
  /** The focus ring's own colour, which the field must show rather than its invalid mark. */
  focusColor: string;
  contrast: number;
}

/**
 * Moves keyboard focus through the form with Tab, from whatever has it now, and reads the outline of each
 * invalid field as it holds focus.
 */
export async function focusRings(page: Page, form: Locator): Promise<Record<string, Ring>> {
  const rings: Record<string, Ring> = {};
  for (let step = 0; step < 8 && Object.keys(rings).length < FIELDS.length; step++) {
    const seen = await form.evaluate((host, fields) => {
      const view = host.ownerDocument.defaultView!;
      const active = (host.shadowRoot ?? host.ownerDocument).activeElement;
      if (!active || !fields.includes(active.id) || active.getAttribute('aria-invalid') !== 'true') return null;
      const pf = host.matches('.pf') ? host : (host.shadowRoot ?? host).querySelector('.pf')!;
      const ring = view.getComputedStyle(pf).getPropertyValue('--focus-ring').trim() || view.getComputedStyle(pf).getPropertyValue('--color-ring-primary').trim();
      // The ring's colour as the browser writes a computed colour, to compare with the outline's.
      const probe = host.ownerDocument.createElement('span');
      probe.style.color = ring;
      pf.appendChild(probe);
      const focusColor = view.getComputedStyle(probe).color;
      probe.remove();
      const style = view.getComputedStyle(active);
      return { id: active.id, style: style.outlineStyle, color: style.outlineColor, focusColor, page: view.getComputedStyle(pf).backgroundColor };
    }, FIELDS);
    if (seen) rings[seen.id] = { style: seen.style, color: seen.color, focusColor: seen.focusColor, contrast: contrast(seen.color, seen.page) };
    await page.keyboard.press('Tab');
  }
  return Object.fromEntries(FIELDS.filter((field) => rings[field]).map((field) => [field, rings[field]!]));
}
