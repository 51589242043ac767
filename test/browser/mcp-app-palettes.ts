// The host palettes the contact-form MCP App is shown in (mcp-app-suite.ts): the MCP Apps style
// variables, and the host context that carries them.
// A host's palette, as the MCP Apps style variables carry it: light and dark, with the faint borders
// chat hosts use for their own cards (#e5e7eb on white is 1.2:1).
export const PALETTES = {
  light: {
    '--color-background-primary': '#ffffff',
    '--color-background-secondary': '#f9fafb',
    '--color-text-primary': '#111827',
    '--color-text-secondary': '#6b7280',
    '--color-border-primary': '#e5e7eb',
    '--color-text-danger': '#dc2626',
    '--color-background-danger': '#fef2f2',
    '--color-text-success': '#15803d',
    '--color-background-success': '#f0fdf4',
  },
  dark: {
    '--color-background-primary': '#1f2937',
    '--color-background-secondary': '#111827',
    '--color-text-primary': '#f9fafb',
    '--color-text-secondary': '#9ca3af',
    '--color-border-primary': '#374151',
    '--color-text-danger': '#f87171',
    '--color-background-danger': '#450a0a',
    '--color-text-success': '#4ade80',
    '--color-background-success': '#052e16',
  },
} as const;
export type Theme = keyof typeof PALETTES;
export const context = (locale: string | undefined, theme: Theme = 'light', variables: Record<string, string> = PALETTES[theme]) => ({
  ...(locale ? { locale } : {}),
  theme,
  styles: { variables },
});
