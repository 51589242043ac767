// The contact form's contrast guard (WCAG 2.2 1.4.11 and 1.4.3), a part of the form's program
// (./form-core.ts, where it runs with the form's `container` and `ui.probe`): plain ES2020 without `//`.

/** guardContrast() and its colour arithmetic. */
export const CONTRAST_GUARD = String.raw`/*
 * WCAG 2.2 1.4.11: a control's boundary and the focus ring need 3:1 against their background, and text 4.5:1 (1.4.3),
 * whatever colours the surroundings give. Each colour is the first candidate that reaches the ratio
 * against every background it sits on; black or white always reaches it.
 */
function channels(color) {
  var m = /rgba?\(([^)]+)\)/.exec(color);
  if (!m) return null;
  var p = m[1].split(/[\s,\/]+/).filter(Boolean).map(parseFloat);
  return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
}
function resolveColor(value, under) {
  ui.probe.style.color = ''; ui.probe.style.color = value;
  var c = channels(getComputedStyle(ui.probe).color);
  if (!c) return null;
  return under ? { r: c.r * c.a + under.r * (1 - c.a), g: c.g * c.a + under.g * (1 - c.a), b: c.b * c.a + under.b * (1 - c.a), a: 1 } : c;
}
function luminance(c) {
  var f = function (v) { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
}
function contrast(a, b) { var x = luminance(a), y = luminance(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
function guardContrast() {
  var dark = container.getAttribute('data-theme') === 'dark';
  var base = dark ? { r: 0, g: 0, b: 0, a: 1 } : { r: 255, g: 255, b: 255, a: 1 };
  var page = resolveColor('var(--color-background-primary)', base) || base;
  var backgrounds = { page: [page], alert: [resolveColor('var(--color-background-danger)', page) || page], done: [resolveColor('var(--color-background-success)', page) || page] };
  var pick = function (name, candidates, against, ratio) {
    container.style.removeProperty(name);
    for (var i = 0; i < candidates.length; i++) {
      var c = resolveColor(candidates[i], against[0]);
      if (c && against.every(function (bg) { return contrast(c, bg) >= ratio; })) { container.style.setProperty(name, 'rgb(' + [c.r, c.g, c.b].map(Math.round).join(',') + ')'); return; }
    }
  };
  var last = ['var(--color-text-primary)', '#000', '#fff'];
  pick('--body-text', last, backgrounds.page, 4.5);
  pick('--intro-text', ['var(--color-text-secondary)'].concat(last), backgrounds.page, 4.5);
  pick('--button-text', ['var(--accent-text)', '#000', '#fff'], [resolveColor('var(--accent)', page) || page], 4.5);
  pick('--focus-ring', ['var(--color-ring-primary)'].concat(last), backgrounds.page, 3);
  pick('--link-text', ['var(--accent)'].concat(last), backgrounds.page, 4.5);
  pick('--control-border', ['var(--color-border-primary)', 'var(--color-text-secondary)'].concat(last), backgrounds.page, 3);
  pick('--control-invalid', ['var(--color-text-danger)'].concat(last), backgrounds.page, 3);
  pick('--error-text', ['var(--color-text-danger)'].concat(last), backgrounds.page, 4.5);
  pick('--alert-text', ['var(--color-text-danger)'].concat(last), backgrounds.alert, 4.5);
  pick('--done-text', ['var(--color-text-success)'].concat(last), backgrounds.done, 4.5);
}`;
