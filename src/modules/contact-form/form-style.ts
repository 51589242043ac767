// The contact form's style, shared by its two shells (see form-core.ts).

/**
 * The form's style, scoped to its container (`.pf`): the MCP App puts it in a <style>, the element in a
 * constructed style sheet of its shadow root. The colours are variables: an MCP host's style variables
 * override them on the container, and a site sets `--portico-*` on the element.
 */
export const FORM_STYLE = `
.pf{--color-background-primary:var(--portico-background,#fff);--color-background-secondary:var(--portico-background-secondary,#f4f6f8);
--color-text-primary:var(--portico-text,#1b1f24);--color-text-secondary:var(--portico-text-secondary,#4a5560);
--color-border-primary:var(--portico-border,#8a949e);--color-text-danger:var(--portico-danger,#b3261e);--color-background-danger:var(--portico-danger-background,#fdecea);
--color-text-success:var(--portico-success,#1e6b34);--color-background-success:var(--portico-success-background,#e7f5ea);--color-ring-primary:var(--portico-focus,#0b5cad);
--accent:var(--portico-accent,#0b5cad);--accent-text:var(--portico-accent-text,#fff);
--font-sans:var(--portico-font,system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif);--border-radius-md:var(--portico-radius,8px);
color-scheme:light;box-sizing:border-box;padding:1rem;font:16px/1.5 var(--font-sans);color:var(--body-text,var(--color-text-primary));background:var(--color-background-primary)}
.pf[data-theme=dark]{--color-background-primary:var(--portico-background,#17191c);--color-background-secondary:var(--portico-background-secondary,#22262b);
--color-text-primary:var(--portico-text,#eef1f4);--color-text-secondary:var(--portico-text-secondary,#b4bcc4);--color-border-primary:var(--portico-border,#6b747d);
--color-text-danger:var(--portico-danger,#ffb4ab);--color-background-danger:var(--portico-danger-background,#3b1512);--color-text-success:var(--portico-success,#9bd8a8);
--color-background-success:var(--portico-success-background,#10301a);--color-ring-primary:var(--portico-focus,#6ea8fe);--accent:var(--portico-accent,#6ea8fe);--accent-text:var(--portico-accent-text,#0b1a2e);color-scheme:dark}
.pf *{box-sizing:border-box}.pf [hidden]{display:none!important}
.pf .inner{max-width:36rem;margin:0 auto}.pf h1{font-size:1.35rem;margin:0 0 .25rem}
.pf .intro{margin:0 0 1rem;color:var(--intro-text,var(--color-text-secondary))}
.pf .field{margin:0 0 .9rem}.pf label{display:block;font-weight:600;margin:0 0 .25rem}
.pf input[type=text],.pf textarea,.pf select{width:100%;font:inherit;color:inherit;background:var(--color-background-primary);
padding:.55rem .7rem;border:1px solid var(--control-border,var(--color-border-primary));border-radius:var(--border-radius-md)}
.pf textarea{min-height:8rem;resize:vertical}
.pf .check{display:flex;gap:.6rem;align-items:flex-start}.pf .check label{font-weight:400;margin:0}.pf .check a{color:var(--link-text,var(--accent))}
.pf .check input{width:1.15rem;height:1.15rem;margin:.2rem 0 0;flex:none;accent-color:var(--accent)}
.pf input[type=text][aria-invalid=true],.pf textarea[aria-invalid=true],.pf select[aria-invalid=true]{border-color:var(--control-invalid,var(--color-text-danger));border-width:2px}
.pf .check input[aria-invalid=true]{box-shadow:0 0 0 2px var(--color-background-primary),0 0 0 4px var(--control-invalid,var(--color-text-danger))}
.pf .error{margin:.25rem 0 0;color:var(--error-text,var(--color-text-danger));font-size:.92rem}.pf .error:empty{display:none}
.pf .alert,.pf .done{margin:0 0 .9rem;padding:.6rem .8rem;border-radius:var(--border-radius-md)}
.pf .alert{color:var(--alert-text,var(--color-text-danger));background:var(--color-background-danger)}
.pf .done{color:var(--done-text,var(--color-text-success));background:var(--color-background-success);font-weight:600}
.pf .done.pending{color:var(--color-text-primary);background:var(--color-background-secondary)}
.pf .alert:empty,.pf .done:empty{display:none}
.pf button{font:inherit;font-weight:600;padding:.65rem 1.6rem;border:0;border-radius:var(--border-radius-md);
background:var(--accent);color:var(--button-text,var(--accent-text));cursor:pointer}.pf button:disabled{opacity:.65;cursor:progress}
.pf :focus-visible{outline:3px solid var(--focus-ring,var(--color-ring-primary));outline-offset:2px}
.pf [aria-invalid=true]:focus-visible{outline-offset:5px}`;
